/**
 * Every recorded upstream stream in the shared fixtures, replayed byte for byte by the mock server
 * and parsed by the provider that speaks its format. Expected text is computed here straight from
 * the recorded JSON payloads, independently of the code under test.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { createAnthropicProvider } from './create-anthropic-provider.js'
import { createOpenAICompatibleProvider } from './create-openai-compatible-provider.js'
import { collectEvents, upstreamFixture } from './test-helpers.js'
import type { ChatProvider, ProviderEvent } from './types.js'

let server: MockModelServer
let openai: ChatProvider
let anthropic: ChatProvider
beforeAll(async () => {
  server = await startMockModelServer()
  openai = createOpenAICompatibleProvider({
    name: 'openai',
    apiType: 'openai',
    baseUrl: `${server.url}/v1`,
    model: 'gpt-4o-mini',
    apiKey: 'sk-test',
  })
  anthropic = createAnthropicProvider({
    name: 'anthropic',
    apiType: 'anthropic',
    baseUrl: server.url,
    model: 'claude-sonnet-5-5',
    apiKey: 'sk-ant-test',
  })
})
afterAll(() => server.close())

async function replay(provider: ChatProvider, fixture: string, interaction?: number) {
  server.script({ fixture: upstreamFixture(fixture), interaction })
  return collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'replay' }] }))
}

/** JSON payloads of a chunks file, or of a cassette's raw SSE body. */
function payloads(fixture: string, interaction = 0): Record<string, unknown>[] {
  const text = readFileSync(upstreamFixture(fixture), 'utf8')
  if (fixture.endsWith('.chunks.txt')) {
    return text
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line))
  }
  const cassette = parseYaml(text) as { interactions: { response: { body: { string: string } } }[] }
  return cassette.interactions[interaction]!.response.body.string.split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)))
}

type Delta = { content?: string | null; reasoning_content?: string | null }

function openAIField(fixture: string, field: keyof Delta, interaction?: number): string {
  return payloads(fixture, interaction)
    .map((chunk) => ((chunk.choices as { delta?: Delta }[])[0]?.delta?.[field] as string | undefined) ?? '')
    .join('')
}

function anthropicText(fixture: string, interaction?: number): string {
  return payloads(fixture, interaction)
    .map((event) => {
      const delta = event.delta as { type?: string; text?: string } | undefined
      return event.type === 'content_block_delta' && delta?.type === 'text_delta' ? delta.text : ''
    })
    .join('')
}

const toolCalls = (events: ProviderEvent[]) => events.filter((event) => event.type === 'tool-call')
const last = (events: ProviderEvent[], type: ProviderEvent['type']) =>
  events.filter((event) => event.type === type).at(-1)

describe('recorded OpenAI-format streams', () => {
  it('openai-text: 300 content deltas, usage on a choices:[] chunk', async () => {
    const result = await replay(openai, 'vercel-ai.openai-text.chunks.txt')
    expect(result.error).toBeUndefined()
    expect(result.text).toBe(openAIField('vercel-ai.openai-text.chunks.txt', 'content'))
    expect(result.text.length).toBeGreaterThan(500)
    expect(last(result.events, 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 16, outputTokens: 300, reasoningTokens: 0, cachedInputTokens: 0 },
    })
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('deepseek-reasoning: reasoning kept apart, usage on the finish chunk', async () => {
    const result = await replay(openai, 'vercel-ai.deepseek-reasoning.chunks.txt')
    expect(result.reasoning).toBe(openAIField('vercel-ai.deepseek-reasoning.chunks.txt', 'reasoning_content'))
    expect(result.reasoning.length).toBeGreaterThan(100)
    expect(result.text).toBe(openAIField('vercel-ai.deepseek-reasoning.chunks.txt', 'content'))
    expect(last(result.events, 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 18, outputTokens: 219, reasoningTokens: 205, cachedInputTokens: 0 },
    })
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('deepseek-tool-call: reasoning, then one call from argument fragments', async () => {
    const result = await replay(openai, 'vercel-ai.deepseek-tool-call.chunks.txt')
    expect(result.reasoning.length).toBeGreaterThan(20)
    expect(result.text).toBe('')
    expect(toolCalls(result.events)).toMatchObject([
      { name: 'weather', arguments: { location: expect.any(String) } },
    ])
    expect(toolCalls(result.events)[0]).toHaveProperty('id', expect.stringMatching(/^call_00_/))
    expect(last(result.events, 'usage')).toMatchObject({
      usage: { inputTokens: 339, cachedInputTokens: 320 },
    })
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('alibaba-tool-call: continuation deltas with id "" are the same call', async () => {
    const result = await replay(openai, 'vercel-ai.alibaba-tool-call.chunks.txt')
    expect(toolCalls(result.events)).toEqual([
      {
        type: 'tool-call',
        id: 'call_eee11723464a4b9eb8cee71d',
        name: 'weather',
        arguments: { location: 'San Francisco' },
        rawArguments: '{"location": "San Francisco"}',
      },
    ])
    expect(last(result.events, 'usage')).toMatchObject({ usage: { inputTokens: 295, outputTokens: 22 } })
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('simonw-llm tool use: a call, then the text answer of the second interaction', async () => {
    const first = await replay(openai, 'simonw-llm.test_tool_use_basic.yaml', 0)
    expect(toolCalls(first.events)).toMatchObject([{ name: 'multiply', arguments: { a: 1231, b: 2331 } }])
    expect(first.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
    const second = await replay(openai, 'simonw-llm.test_tool_use_basic.yaml', 1)
    expect(second.text).toBe(openAIField('simonw-llm.test_tool_use_basic.yaml', 'content', 1))
    expect(second.text).toContain('2,869,461')
    expect(last(second.events, 'usage')).toMatchObject({ usage: { inputTokens: 87, outputTokens: 26 } })
  })

  it('kimi through a router: a repeated id and name with full arguments is one call', async () => {
    const result = await replay(openai, 'simonw-llm.test_tools_streaming_variant_a.yaml')
    expect(result.error).toBeUndefined()
    expect(toolCalls(result.events)).toEqual([
      { type: 'tool-call', id: '0', name: 'llm_version', arguments: {}, rawArguments: '{}' },
    ])
    expect(last(result.events, 'usage')).toMatchObject({ usage: { inputTokens: 57, outputTokens: 17 } })
    // No finish_reason was sent: the call itself says how the reply ended.
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('a non-stream 400 error body becomes upstream_http with its message', async () => {
    const result = await replay(openai, 'vercel-ai.reasoning-model-legacy-parameter-error.json')
    expect(result.events).toEqual([])
    expect(result.error?.code).toBe('upstream_http')
    expect(result.error?.status).toBe(400)
    expect(result.error?.message).toContain('max_tokens')
  })
})

describe('recorded Anthropic streams', () => {
  it('anthropic-text: text deltas, cumulative usage, end_turn', async () => {
    const result = await replay(anthropic, 'vercel-ai.anthropic-text.chunks.txt')
    expect(result.error).toBeUndefined()
    expect(result.text).toBe(anthropicText('vercel-ai.anthropic-text.chunks.txt'))
    expect(result.text).toMatch(/^Hello! I'm doing well/)
    expect(last(result.events, 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 12, outputTokens: 30, cachedInputTokens: 0 },
    })
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('anthropic tool use: input_json_delta split mid-string, pings in between', async () => {
    const result = await replay(anthropic, 'vercel-ai.anthropic-json-other-tool.1.chunks.txt')
    expect(toolCalls(result.events)).toEqual([
      {
        type: 'tool-call',
        id: 'toolu_019Zvehfe1XQWweT1pm7okyt',
        name: 'weather',
        arguments: { location: 'San Francisco' },
        rawArguments: '{"location": "San Francisco"}',
      },
    ])
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('simonw-llm-anthropic tools: text then two parallel tool_use blocks with empty input', async () => {
    const first = await replay(anthropic, 'simonw-llm-anthropic.test_tools.yaml', 0)
    expect(first.error).toBeUndefined()
    expect(first.text).toBe(anthropicText('simonw-llm-anthropic.test_tools.yaml', 0))
    expect(toolCalls(first.events).map((call) => [call.name, call.arguments])).toEqual([
      ['pelican_name_generator', {}],
      ['pelican_name_generator', {}],
    ])
    expect(first.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
    const second = await replay(anthropic, 'simonw-llm-anthropic.test_tools.yaml', 1)
    expect(second.text).toBe(anthropicText('simonw-llm-anthropic.test_tools.yaml', 1))
    expect(last(second.events, 'usage')).toMatchObject({ usage: { inputTokens: 467, outputTokens: 72 } })
  })

  it('simonw-llm-anthropic image prompt: padded JSON, ping mid-block', async () => {
    const result = await replay(anthropic, 'simonw-llm-anthropic.test_image_prompt.yaml')
    expect(result.text).toBe('Red square, green square.')
    expect(last(result.events, 'usage')).toMatchObject({ usage: { inputTokens: 83, outputTokens: 9 } })
  })
})
