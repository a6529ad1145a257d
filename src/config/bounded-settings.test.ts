/**
 * Settings that bound work have bounded ranges: a config that sets one to a value that makes no
 * sense (`1e9`, `-1`, `0`) is refused at load with the field's path and the range, and sane values
 * still load.
 */
import { describe, expect, it } from 'vitest'
import { createCharpipe } from '../engine/create-charpipe.js'
import { InvalidConfigError } from '../shared/errors.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import type { CharpipeConfigInput } from './schema.js'

async function issuesOf(config: CharpipeConfigInput) {
  try {
    // The raw input, parsed by createCharpipe itself as a caller's config would be.
    const input = {
      ...config,
      history: { ...config.history, store: 'memory' },
      memory: { ...config.memory, enabled: false },
    }
    const charpipe = await createCharpipe(input as never)
    await charpipe.close()
    return []
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error
    return (error as InvalidConfigError).issues
  }
}

const regex = (value: unknown) =>
  ({ pipeline: { processors: { 'regex-processor': { max_input_chars: value } } } }) as CharpipeConfigInput

describe('bounded settings', () => {
  it.each([
    ['pipeline.processors.regex-processor.max_input_chars', regex(1e9)],
    ['pipeline.processors.regex-processor.max_input_chars', regex(-1)],
    ['pipeline.processors.regex-processor.max_input_chars', regex(0)],
    ['pipeline.processors.regex-processor.max_input_chars', regex(2.5)],
    ['llm.max_tokens', { llm: { max_tokens: 1e9 } }],
    ['llm.max_tokens', { llm: { max_tokens: 0 } }],
    ['llm.timeout_ms', { llm: { timeout_ms: -1 } }],
    ['llm.timeout_ms', { llm: { timeout_ms: 1e9 } }],
    ['llm.stall_timeout_ms', { llm: { stall_timeout_ms: 0 } }],
    ['llm.max_tool_steps', { llm: { max_tool_steps: 1e9 } }],
    ['history.max_turns', { history: { max_turns: 1e9 } }],
    ['memory.top_k', { memory: { top_k: 1e9 } }],
    ['memory.extract_timeout_ms', { memory: { extract_timeout_ms: 1e9 } }],
    ['memory.recall_timeout_ms', { memory: { recall_timeout_ms: 1e9 } }],
    ['memory.recall_timeout_ms', { memory: { recall_timeout_ms: 10 } }],
    ['assets.max_bytes', { assets: { max_bytes: 1e12 } }],
    ['storage.timeout_ms', { storage: { timeout_ms: 1e9 } }],
    ['server.shutdown_grace_ms', { server: { shutdown_grace_ms: 0 } }],
    ['server.ws_max_buffered_bytes', { server: { ws_max_buffered_bytes: 1e12 } }],
    ['sentence.max_chars', { sentence: { max_chars: -1 } }],
    [
      'pipeline.processors.memory-retriever.top_k',
      { pipeline: { processors: { 'memory-retriever': { top_k: 1e9 } } } } as CharpipeConfigInput,
    ],
    [
      'llm.processors.session-loader.max_turns',
      { llm: { processors: { 'session-loader': { max_turns: -1 } } } } as CharpipeConfigInput,
    ],
    [
      'pipeline.processors.token-limiter.safety_margin',
      { pipeline: { processors: { 'token-limiter': { safety_margin: 1e12 } } } } as CharpipeConfigInput,
    ],
  ])('refuses %s out of range', async (path, config) => {
    const issues = await issuesOf(config)
    expect(issues.map((issue) => issue.path)).toContain(path)
    const message = issues.find((issue) => issue.path === path)!.message
    expect(message).toMatch(/\d/)
  })

  it('names the range in a processor option message', async () => {
    const [issue] = await issuesOf(regex(1e9))
    expect(issue!.message).toBe('must be a whole number from 1 to 1000000, got 1000000000')
  })

  it('loads sane values', async () => {
    const config = makeConfig({
      llm: { max_tokens: 4096, timeout_ms: 60_000, stall_timeout_ms: 10_000, max_tool_steps: 8 },
      history: { max_turns: 50 },
      memory: { top_k: 5 },
      pipeline: {
        processors: {
          'regex-processor': { max_input_chars: 50_000 },
          'memory-retriever': { top_k: 10 },
          'session-loader': { max_turns: 0 },
        },
      },
    } as CharpipeConfigInput)
    expect(await issuesOf(config as CharpipeConfigInput)).toEqual([])
  })
})
