/**
 * `llm_done.timing` read from the engine's clock: the model takes its time on a manual clock, so
 * each figure is exact and no test waits for real time.
 */
import { describe, expect, it } from 'vitest'
import type { ChatProvider } from '../providers/types.js'
import { UpstreamHttpError } from '../shared/errors.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { createFakeProvider, createManualClock, type ManualClock } from '../testing/index.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

/** `provider` as a model that takes `stepMs` on `clock` before each event it streams. */
function takingTime(provider: ChatProvider, clock: ManualClock, stepMs: number): ChatProvider {
  return {
    ...provider,
    async *streamChat(request, options) {
      for await (const event of provider.streamChat(request, options)) {
        await clock.advance(stepMs)
        yield event
      }
    },
  }
}

describe('llm_done timing', () => {
  it('reports first chunk, first sentence and total from the turn start, on the engine clock', async () => {
    const clock = createManualClock()
    const provider = createFakeProvider({
      replies: [
        [
          { type: 'text-delta', text: '你好' },
          { type: 'text-delta', text: '呀。' },
          { type: 'text-delta', text: '再见。' },
          { type: 'finish', reason: 'stop' },
        ],
      ],
    })
    const charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'plain' } }), {
      clock,
      provider: takingTime(provider, clock, 5),
    })
    const { timing } = doneOf(await collectEvents(charpipe.generate({ text: '嗨' })))
    await charpipe.close()
    // The first chunk comes 5 ms in, its sentence ends with the second (10 ms), the finish at 20 ms.
    expect(timing).toEqual({ first_chunk_ms: 5, first_sentence_ms: 10, total_ms: 20 })
  })

  it('says null for what a failed turn never produced', async () => {
    const clock = createManualClock()
    const provider = createFakeProvider({
      replies: [{ events: [], error: new UpstreamHttpError(500, 'down') }],
    })
    const charpipe = await createCharpipe(makeConfig({ llm: { max_retries: 0 } }), { clock, provider })
    const { timing } = doneOf(await collectEvents(charpipe.generate({ text: '嗨' })))
    await charpipe.close()
    // The clock never moved: the failure took no time.
    expect(timing).toEqual({ first_chunk_ms: null, first_sentence_ms: null, total_ms: 0 })
  })
})
