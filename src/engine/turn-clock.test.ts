/**
 * A turn reads the engine's clock: `createCharpipe`'s `clock` (a manual clock here) times the turn
 * (`llm_done.timing`) and expires a prepared turn, so neither waits for, nor depends on, real time.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../characters/load-config.js'
import type { ProviderEvent } from '../providers/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import { createManualClock } from '../testing/create-manual-clock.js'
import { createCharpipe } from './create-charpipe.js'
import type { Charpipe } from './types.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

/** A provider whose every chunk waits until the test lets it go. */
function createGatedProvider() {
  const waiting: (() => void)[] = []
  let requests = 0
  return {
    name: 'gated',
    model: 'gated-model',
    get requests() {
      return requests
    },
    /** Lets the next waiting chunk out; resolves once a chunk is waiting. */
    async release(): Promise<void> {
      while (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve))
      waiting.shift()?.()
    },
    async *streamChat(
      _request: unknown,
      options: { signal?: AbortSignal } = {},
    ): AsyncGenerator<ProviderEvent> {
      requests++
      for (const text of ['你好。', '再见。']) {
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve)
          options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true })
        })
        yield { type: 'text-delta', text }
      }
      yield { type: 'finish', reason: 'stop' }
    },
  }
}

const configOf = (conversation: Record<string, unknown> = {}) =>
  parseConfig({
    character: { reply_format: 'plain' },
    // History in memory: the default SQLite file would sit in the working tree.
    history: { store: 'memory' },
    memory: { enabled: false },
    conversation,
  }).config

describe('the engine clock', () => {
  it('times a turn on the injected clock: first chunk, first sentence and total', async () => {
    const clock = createManualClock()
    const provider = createGatedProvider()
    charpipe = await createCharpipe(configOf(), { clock, provider })
    const events: CharpipeEvent[] = []
    const done = charpipe.run({ text: '你好', session: 'timed' }, { onEvent: (event) => events.push(event) })
    await clock.advance(120)
    await provider.release()
    await clock.advance(300)
    await provider.release()
    await done
    const last = events.at(-1)
    expect(last?.type).toBe('llm_done')
    const timing = last?.type === 'llm_done' ? last.timing : undefined
    expect(timing).toMatchObject({ first_chunk_ms: 120, first_sentence_ms: 120, total_ms: 420 })
  })

  it('expires a prepared turn when the injected clock passes conversation.preflight_timeout_ms', async () => {
    const clock = createManualClock()
    const provider = createGatedProvider()
    charpipe = await createCharpipe(configOf({ preflight: true, preflight_timeout_ms: 5_000 }), {
      clock,
      provider,
    })
    const prepared = charpipe.run({ text: '你好', session: 'early', preflight: true }, { onEvent: () => {} })
    await prepared
    while (provider.requests === 0) await new Promise((resolve) => setImmediate(resolve))
    await clock.advance(4_999)
    expect(charpipe.inspect.preflight?.().dropped.expired).toBe(0)
    await clock.advance(1)
    expect(charpipe.inspect.preflight?.().dropped.expired).toBe(1)
  })
})
