/**
 * A provider that hands its events over a batch at a time (the built-in streaming providers do, one
 * batch per network read): the turn reads each batch in one go, and an interrupt in the middle of a
 * batch still stops the turn before the next event. A custom provider's plain async iterable, and
 * its failure, go through the same turn as before.
 */
import { describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/create-charpipe.js'
import { iterateEventBatches } from '../../src/providers/iterate-event-batches.js'
import type { ChatProvider, ProviderEvent } from '../../src/providers/types.js'
import { UpstreamHttpError } from '../../src/shared/errors.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'

const deltas = (text: string): ProviderEvent[] =>
  Array.from(text, (character): ProviderEvent => ({ type: 'text-delta', text: character }))

/** A provider whose every reply is `reads`, one batch each; counts the batches taken. */
function createBatchedProvider(reads: ProviderEvent[][]) {
  const taken = { batches: 0, events: 0 }
  const provider: ChatProvider = {
    name: 'batched',
    model: 'm',
    streamChat() {
      const left = reads.map((read) => [...read])
      const stream = iterateEventBatches({
        open: async () => ({ next: async () => left.shift() }),
        fail: (error) => error,
        close() {},
      })
      const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<ProviderEvent> & {
        nextBatch(): Promise<readonly ProviderEvent[] | undefined>
      }
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => {
            taken.events++
            return iterator.next()
          },
          nextBatch: () => {
            taken.batches++
            return iterator.nextBatch()
          },
          return: () => iterator.return!(),
        }),
      }
    },
  }
  return { provider, taken }
}

describe('a provider read a batch at a time', () => {
  it('streams a whole reply read as one batch, taking no event one at a time', async () => {
    const { provider, taken } = createBatchedProvider([
      [...deltas('第一句。第二句。'), { type: 'finish', reason: 'stop' }],
    ])
    const charpipe = await createCharpipe(makeConfig({}), { provider })
    const events: CharpipeEvent[] = []
    await charpipe.run({ session: 'b', text: '嗨' }, { onEvent: (event) => events.push(event) })
    expect(events.filter((event) => event.type === 'llm_sentence').map((event) => event.text)).toEqual([
      '第一句。',
      '第二句。',
    ])
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', interrupted: false })
    expect(taken).toEqual({ batches: 2, events: 0 })
    await charpipe.close()
  })

  it('stops at an interrupt in the middle of a batch: no chunk after it, llm_done last', async () => {
    // A read's adjacent deltas come joined; the usage between them keeps the last one apart.
    const { provider } = createBatchedProvider([
      [
        ...deltas('第一句。第二句。'),
        { type: 'usage', usage: { inputTokens: 1, outputTokens: 8 } },
        ...deltas('第三句。'),
        { type: 'finish', reason: 'stop' },
      ],
    ])
    const charpipe = await createCharpipe(makeConfig({}), { provider })
    const controller = new AbortController()
    const events: CharpipeEvent[] = []
    let chunksAfterInterrupt = 0
    await charpipe.run(
      { session: 'i', text: '嗨' },
      {
        signal: controller.signal,
        onEvent(event) {
          events.push(event)
          if (controller.signal.aborted && event.type === 'llm_chunk') chunksAfterInterrupt++
          if (event.type === 'llm_chunk' && event.text.includes('二')) controller.abort()
        },
      },
    )
    expect(chunksAfterInterrupt).toBe(0)
    expect(events.some((event) => event.type === 'llm_chunk' && event.text.includes('三'))).toBe(false)
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', interrupted: true })
    expect(events.filter((event) => event.type === 'llm_done')).toHaveLength(1)
    await charpipe.close()
  })

  it('ends the turn with llm_error, then llm_done, when a custom provider throws mid-reply', async () => {
    const provider: ChatProvider = {
      name: 'custom',
      model: 'm',
      async *streamChat() {
        yield* deltas('你好')
        throw new UpstreamHttpError(500, 'gone')
      },
    }
    const charpipe = await createCharpipe(makeConfig({ llm: { max_retries: 0 } }), { provider })
    const events: CharpipeEvent[] = []
    await charpipe.run({ session: 'c', text: '嗨' }, { onEvent: (event) => events.push(event) })
    expect(events.filter((event) => event.type === 'llm_chunk').map((event) => event.text)).toEqual([
      '你',
      '好',
    ])
    expect(events.map((event) => event.type).slice(-2)).toEqual(['llm_error', 'llm_done'])
    await charpipe.close()
  })
})
