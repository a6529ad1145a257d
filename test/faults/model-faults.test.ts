/**
 * Model faults with the default retry settings (`max_retries: 2`, no fallbacks): a model that sends
 * its headers and then nothing, and a 429 asking to come back in an hour. Each turn holds one wait
 * budget per provider (`timeout_ms`), so it ends with its error and `llm_done` after at most that
 * budget, not after every retry's own timeout and backoff (3 × 120 s plus backoffs before).
 *
 * The engine's timers are fake (vitest): time moves only when a test moves it. A turn that ends
 * "at once" ends with the clock standing still, and the silent model's turn ends once the clock has
 * moved by its `timeout_ms`, after one request: a retry or a backoff would need more time than was
 * given, and the turn would never end.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'

let model: MockModelServer
let fallback: MockModelServer
beforeAll(async () => {
  model = await startMockModelServer()
  fallback = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
  await fallback.close()
})
beforeEach(() => {
  model.reset()
  fallback.reset()
})

/** Runs one turn under fake timers; `whileWaiting` may move the clock while the turn runs. */
async function runTurn(llm: Record<string, unknown>, whileWaiting: () => Promise<void> = async () => {}) {
  const config = parseConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, ...llm },
    history: { store: 'memory' },
    memory: { enabled: false },
  }).config
  // Timers only: sockets, the mock server's own pacing (node:timers/promises) and Date stay real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
  try {
    const charpipe = await createCharpipe(config)
    const events: CharpipeEvent[] = []
    const turn = (async () => {
      for await (const event of charpipe.generate({ text: '你好' })) events.push(event)
    })()
    await whileWaiting()
    await turn
    await charpipe.close()
    return { events, types: events.map((event) => event.type) }
  } finally {
    vi.useRealTimers()
  }
}

describe('model faults with the default retry settings', { timeout: 60_000 }, () => {
  it('a model that sends headers and then nothing: upstream_timeout and llm_done after timeout_ms, one request', async () => {
    model.script({ text: '迟到的回答。', firstTokenDelayMs: 600_000 })
    const result = await runTurn({ timeout_ms: 2000 }, async () => {
      // expect.poll waits on real timers and leaves the fake clock alone (vi.waitFor would move it).
      await expect.poll(() => model.requests.length, { timeout: 20_000 }).toBe(1)
      // Exactly the budget: three attempts with their backoffs would need 7.5 s.
      await vi.advanceTimersByTimeAsync(2000)
    })
    expect(result.types).toEqual(['llm_error', 'llm_done'])
    expect(result.events[0]).toMatchObject({
      code: 'upstream_timeout',
      message: expect.stringContaining('within 2000 ms'),
    })
    expect(model.requests).toHaveLength(1)
  })

  it('a 429 with Retry-After: 3600 ends the turn at once (the clock standing still) with upstream_http 429 (default timeout_ms)', async () => {
    model.script({ status: 429, retryAfter: 3600, body: { error: { message: 'rate limited' } } })
    const result = await runTurn({})
    expect(result.types).toEqual(['llm_error', 'llm_done'])
    expect(result.events[0]).toMatchObject({ code: 'upstream_http', status: 429 })
    expect(model.requests).toHaveLength(1)
  })

  it('a 429 with Retry-After: 3600 goes straight to a healthy fallback', async () => {
    model.script({ status: 429, retryAfter: 3600, body: { error: { message: 'rate limited' } } })
    fallback.script({ text: '备用模型在。' })
    const result = await runTurn({
      fallbacks: [{ provider: 'custom', base_url: `${fallback.url}/v1` }],
    })
    expect(result.types.at(-1)).toBe('llm_done')
    expect(result.events.at(-1)).toMatchObject({ text: '备用模型在。' })
    expect([model.requests.length, fallback.requests.length]).toEqual([1, 1])
  })
})
