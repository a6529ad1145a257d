/**
 * Giant texts with the default config (history and long-term memory in SQLite, memory on): a 1 MB
 * input, a 1 MB model reply, the turn after them that retrieves both, and a model whose SSE line
 * never ends. Unbroken Chinese text is the worst case for word segmentation and BPE token
 * counting, which were quadratic in one run: a megabyte held the event loop for minutes; such a turn
 * now fails by the test's timeout. How long the event loop is held is a measurement, not a test:
 * `bench/event-loop.bench.ts` (BENCHMARKS.md "Event-loop delay: giant texts"). The structural bounds
 * (capped indexed text, bounded tokenizer windows) are tested beside the code.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import { maxRememberedCharacters } from '../../src/memory/long-term/remember-turn.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'

const giant = `violin ${'这是一段很长的中文文本没有空格'.repeat(70_000)}`.slice(0, 1_000_000)

let model: MockModelServer
let folder: string
beforeAll(async () => {
  model = await startMockModelServer()
  folder = mkdtempSync(join(tmpdir(), 'giant-text-'))
})
afterAll(async () => {
  await model.close()
  rmSync(folder, { recursive: true, force: true })
})
beforeEach(() => model.reset())

/** Runs one turn on a fresh engine over the shared database; returns its events and what was stored. */
async function runTurn(text: string, conversation: CharpipeConfigInput['conversation'] = {}) {
  const config = parseConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'mock-model', max_retries: 0 },
    storage: { sqlite_path: join(folder, 'charpipe.db') },
    conversation,
  }).config
  const charpipe = await createCharpipe(config)
  const events: CharpipeEvent[] = []
  for await (const event of charpipe.generate({ text, session: 'giant' })) events.push(event)
  // The memory of the turn is written after llm_done; close() waits for it.
  await charpipe.close()
  return { events, ...(await readStored(config)) }
}

async function readStored(config: ReturnType<typeof parseConfig>['config']) {
  const reader = await createCharpipe(config)
  try {
    const memories = (await reader.memory?.list({ scope: 'giant', limit: 10 })) ?? []
    return { history: await reader.sessions.history({ session: 'giant' }), memories }
  } finally {
    await reader.close()
  }
}

const doneOf = (events: CharpipeEvent[]) => events.find((event) => event.type === 'llm_done')

describe('giant texts, default config', () => {
  it('refuses a 1 MB input with bad_request naming conversation.max_input_chars', async () => {
    const { events } = await runTurn(giant)
    expect(events.map((event) => event.type)).toEqual(['llm_error', 'llm_done'])
    expect(events[0]).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/max_input_chars/),
    })
    expect(model.requests).toHaveLength(0)
  }, 60_000)

  it('takes a 1 MB input when the limit is raised, storing it whole in history and capped in memory', async () => {
    model.script({ text: '好的。' })
    const { events, history, memories } = await runTurn(giant, { max_input_chars: 2_000_000 })
    expect(doneOf(events)).toMatchObject({ text: '好的。', interrupted: false })
    expect(history.at(-2)?.content).toBe(giant)
    expect(memories).toHaveLength(1)
    expect(memories[0]?.text.length).toBeLessThan(2 * maxRememberedCharacters + 100)
  }, 60_000)

  it('takes a 1 MB model reply, storing it whole in history and capped in memory', async () => {
    model.script({ text: giant, chunkSize: 4_096 })
    const { events, history, memories } = await runTurn('讲个很长的故事吧')
    expect(doneOf(events)).toMatchObject({ interrupted: false })
    expect((doneOf(events) as { text: string }).text).toHaveLength(giant.length)
    expect(history.at(-1)?.content).toBe(giant)
    expect(memories).toHaveLength(2)
    for (const memory of memories) expect(memory.text.length).toBeLessThan(2 * maxRememberedCharacters + 100)
  }, 60_000)

  it('answers the turn after them, which loads and retrieves both', async () => {
    model.script({ text: '记得。' })
    const { events } = await runTurn('violin')
    expect(doneOf(events)).toMatchObject({ text: '记得。', interrupted: false })
  }, 60_000)

  it('ends a turn whose model sends an SSE line past 1 MiB with upstream_stream', async () => {
    const piece = 'x'.repeat(65_536)
    model.script({
      rawChunks: ['data: {"choices":[{"index":0,"delta":{"content":"', ...Array(40).fill(piece)],
    })
    const { events } = await runTurn('你好')
    const error = events.find((event) => event.type === 'llm_error')
    expect(error).toMatchObject({
      code: 'upstream_stream',
      message: expect.stringMatching(/SSE line of more than/),
    })
    expect(doneOf(events)).toBeDefined()
  }, 60_000)
})
