import { describe, expect, it } from 'vitest'
import { UpstreamHttpError } from '../shared/errors.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { createFakeProvider } from '../testing/index.js'
import { collectEvents, doneOf } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

describe('llm_done timing', () => {
  it('reports first chunk, first sentence and total, in that order, from the turn start', async () => {
    const provider = createFakeProvider({
      replies: [
        {
          delayMs: 5,
          events: [
            { type: 'text-delta', text: '你好' },
            { type: 'text-delta', text: '呀。' },
            { type: 'text-delta', text: '再见。' },
            { type: 'finish', reason: 'stop' },
          ],
        },
      ],
    })
    const charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'plain' } }), { provider })
    const { timing } = doneOf(await collectEvents(charpipe.generate({ text: '嗨' })))
    await charpipe.close()
    expect(timing).toBeDefined()
    const { first_chunk_ms, first_sentence_ms, total_ms } = timing!
    expect(first_chunk_ms).toBeGreaterThan(0)
    expect(first_sentence_ms).toBeGreaterThanOrEqual(first_chunk_ms!)
    expect(total_ms).toBeGreaterThanOrEqual(first_sentence_ms!)
  })

  it('says null for what a failed turn never produced', async () => {
    const provider = createFakeProvider({
      replies: [{ events: [], error: new UpstreamHttpError(500, 'down') }],
    })
    const charpipe = await createCharpipe(makeConfig({ llm: { max_retries: 0 } }), { provider })
    const { timing } = doneOf(await collectEvents(charpipe.generate({ text: '嗨' })))
    await charpipe.close()
    expect(timing).toMatchObject({ first_chunk_ms: null, first_sentence_ms: null })
    expect(timing!.total_ms).toBeGreaterThanOrEqual(0)
  })
})
