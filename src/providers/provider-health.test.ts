import { describe, expect, it, vi } from 'vitest'
import { UpstreamHttpError } from '../shared/errors.js'
import { createFakeProvider } from '../testing/create-fake-provider.js'
import { createResilientProvider } from './create-resilient-provider.js'
import { collectEvents } from './test-helpers.js'
import type { ProviderAnswer, ProviderEvent } from './types.js'

const request = { messages: [{ role: 'user' as const, content: 'hi' }] }
const reply = (text: string): ProviderEvent[] => [
  { type: 'text-delta', text },
  { type: 'finish', reason: 'stop' },
]
const down = { events: [], error: new UpstreamHttpError(500, 'down') }

/** A clock the test moves by hand. */
function createManualClock(start = 1_000_000) {
  let time = start
  return {
    now: () => time,
    advance(milliseconds: number) {
      time += milliseconds
    },
  }
}

function setUp() {
  const clock = createManualClock()
  const primary = createFakeProvider({ name: 'deepseek', model: 'deepseek-chat', defaultReply: reply('主') })
  const fallback = createFakeProvider({ name: 'ollama', model: 'qwen3', defaultReply: reply('备用') })
  const provider = createResilientProvider({
    primary,
    fallbacks: [fallback],
    maxRetries: 0,
    cooldownMs: 30_000,
    now: clock.now,
  })
  const answers: ProviderAnswer[] = []
  const ask = async () => {
    const result = await collectEvents(
      provider.streamChat(request, { onAnswer: (answer) => answers.push(answer) }),
    )
    return result.text
  }
  return { clock, primary, fallback, provider, answers, ask }
}

describe('the resilient provider keeps health between requests', () => {
  it('skips a primary that failed until its cooldown, and names who answered', async () => {
    const { clock, primary, answers, ask } = setUp()
    primary.script(down)
    expect(await ask()).toBe('备用')
    clock.advance(10_000)
    expect(await ask()).toBe('备用')
    expect(primary.calls).toHaveLength(1)
    expect(answers).toEqual([
      { provider: 'ollama', model: 'qwen3' },
      { provider: 'ollama', model: 'qwen3' },
    ])
  })

  it('probes the primary in the background after the cooldown; once it answers it is first again', async () => {
    const { clock, primary, fallback, answers, ask } = setUp()
    primary.script(down)
    await ask()
    clock.advance(30_000)
    // This request is served by the fallback while the probe runs.
    expect(await ask()).toBe('备用')
    await vi.waitFor(() => expect(primary.calls).toHaveLength(2))
    await vi.waitFor(() => expect(primary.calls[1]!.aborted).toBe(true))
    expect(await ask()).toBe('主')
    expect(fallback.calls).toHaveLength(2)
    expect(answers.at(-1)).toEqual({ provider: 'deepseek', model: 'deepseek-chat' })
  })

  it('a probe that fails keeps the primary skipped for another cooldown', async () => {
    const { clock, primary, ask } = setUp()
    primary.script(down, down)
    await ask()
    clock.advance(30_000)
    await ask()
    await vi.waitFor(() => expect(primary.calls).toHaveLength(2))
    clock.advance(29_000)
    expect(await ask()).toBe('备用')
    expect(primary.calls).toHaveLength(2)
  })

  it('tries every provider when all are being skipped, rather than failing untried', async () => {
    const { clock, primary, fallback, ask } = setUp()
    primary.script(down, down)
    fallback.script(down)
    await expect(ask()).resolves.toBe('')
    clock.advance(1_000)
    // Both are skipped now: both are tried anyway, in order; the fallback answers.
    expect(await ask()).toBe('备用')
    expect([primary.calls.length, fallback.calls.length]).toEqual([2, 2])
  })

  it('without fallbacks the one provider is never skipped', async () => {
    const primary = createFakeProvider({ replies: [down], defaultReply: reply('ok') })
    const provider = createResilientProvider({ primary, maxRetries: 0, cooldownMs: 30_000 })
    expect((await collectEvents(provider.streamChat(request))).error?.code).toBe('upstream_http')
    expect((await collectEvents(provider.streamChat(request))).text).toBe('ok')
  })
})
