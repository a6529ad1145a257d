import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type EventBatchSource, iterateEventBatches } from './iterate-event-batches.js'
import { maxDeltaChars } from './slice-large-delta.js'
import type { ProviderEvent } from './types.js'

const text = (value: string): ProviderEvent => ({ type: 'text-delta', text: value })

function createRecordingStream(batches: (ProviderEvent[] | Error)[]) {
  const record = { opened: 0, closed: [] as boolean[], failed: [] as unknown[] }
  const source: EventBatchSource = {
    async next() {
      const batch = batches.shift()
      if (batch instanceof Error) throw batch
      return batch
    },
  }
  const stream = iterateEventBatches({
    async open() {
      record.opened++
      return source
    },
    fail(error) {
      record.failed.push(error)
      return new Error(`converted: ${(error as Error).message}`)
    },
    close(completed) {
      record.closed.push(completed)
    },
  })
  return { stream, record }
}

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

describe('iterateEventBatches', () => {
  it('hands on every event of every batch in order, skipping empty batches, then closes as completed', async () => {
    const { stream, record } = createRecordingStream([[text('a'), text('b')], [], [text('c')]])
    expect(await collect(stream)).toEqual([text('a'), text('b'), text('c')])
    expect(record).toEqual({ opened: 1, closed: [true], failed: [] })
  })

  it('starts nothing before the first next(), and a stream left unstarted is not closed', async () => {
    const { stream, record } = createRecordingStream([[text('a')]])
    const iterator = stream[Symbol.asyncIterator]()
    expect(record.opened).toBe(0)
    expect(await iterator.return?.()).toEqual({ value: undefined, done: true })
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
    expect(record).toEqual({ opened: 0, closed: [], failed: [] })
  })

  it('closes a stream left early as not completed, once', async () => {
    const { stream, record } = createRecordingStream([[text('a'), text('b')], [text('c')]])
    for await (const event of stream) {
      expect(event).toEqual(text('a'))
      break
    }
    const iterator = stream[Symbol.asyncIterator]()
    await iterator.return?.()
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
    expect(record.closed).toEqual([false])
  })

  it('throws a failure once, converted, after the events read before it, then is over', async () => {
    const { stream, record } = createRecordingStream([[text('a')], new Error('cut')])
    const iterator = stream[Symbol.asyncIterator]()
    expect(await iterator.next()).toEqual({ value: text('a'), done: false })
    await expect(iterator.next()).rejects.toThrow('converted: cut')
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
    expect(record.closed).toEqual([false])
    expect(record.failed).toEqual([new Error('cut')])
  })

  it('makes a return() called during a read wait for it, as a generator does', async () => {
    const { stream, record } = createRecordingStream([[text('a')], [text('b')]])
    const iterator = stream[Symbol.asyncIterator]()
    const first = iterator.next()
    const returned = iterator.return?.()
    expect(await first).toEqual({ value: text('a'), done: false })
    expect(await returned).toEqual({ value: undefined, done: true })
    expect(record.closed).toEqual([false])
  })

  it('hands a delta too large for one event on in slices, between the other events', async () => {
    const large = 'x'.repeat(maxDeltaChars * 2 + 1)
    const { stream } = createRecordingStream([[text('a'), text(large), text('b')]])
    const events = await collect(stream)
    expect(events.map((event) => (event.type === 'text-delta' ? event.text.length : -1))).toEqual([
      1,
      maxDeltaChars,
      maxDeltaChars,
      1,
      1,
    ])
    expect(events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('')).toBe(`a${large}b`)
  })

  describe('nextBatch', () => {
    type Batches = { nextBatch(): Promise<readonly ProviderEvent[] | undefined> }
    const batchesOf = (stream: AsyncIterable<ProviderEvent>) =>
      stream[Symbol.asyncIterator]() as AsyncIterator<ProviderEvent> & Batches

    it('hands over the events of each read in one promise, then undefined once over', async () => {
      const finish: ProviderEvent = { type: 'finish', reason: 'stop' }
      const { stream, record } = createRecordingStream([[text('a'), finish], [], [text('c')]])
      const iterator = batchesOf(stream)
      expect(await iterator.nextBatch()).toEqual([text('a'), finish])
      expect(await iterator.nextBatch()).toEqual([text('c')])
      expect(await iterator.nextBatch()).toBeUndefined()
      expect(await iterator.next()).toEqual({ value: undefined, done: true })
      expect(record).toEqual({ opened: 1, closed: [true], failed: [] })
    })

    it('mixes with next(): the same events in the same order', async () => {
      const { stream } = createRecordingStream([[text('a'), text('b'), text('c')], [text('d')]])
      const iterator = batchesOf(stream)
      expect(await iterator.next()).toEqual({ value: text('a'), done: false })
      expect(await iterator.nextBatch()).toEqual([text('bc')])
      expect(await iterator.next()).toEqual({ value: text('d'), done: false })
      expect(await iterator.nextBatch()).toBeUndefined()
    })

    it("joins a read's adjacent deltas of one kind, up to the longest delta, in order", async () => {
      const reasoning = (value: string): ProviderEvent => ({ type: 'reasoning-delta', text: value })
      const usage: ProviderEvent = { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } }
      const { stream } = createRecordingStream([
        [reasoning('th'), reasoning('ink'), text('a'), text('b'), usage, text('c'), text('d')],
        [text('e')],
      ])
      const iterator = batchesOf(stream)
      expect(await iterator.nextBatch()).toEqual([reasoning('think'), text('ab'), usage, text('cd')])
      expect(await iterator.nextBatch()).toEqual([text('e')])
      const near = 'n'.repeat(maxDeltaChars - 1)
      const { stream: full } = createRecordingStream([[text(near), text('x'), text('y'), text('z')]])
      expect(await batchesOf(full).nextBatch()).toEqual([text(`${near}x`), text('yz')])
    })

    it('hands a large delta over in slices, one a batch, between the events around it', async () => {
      const large = 'x'.repeat(maxDeltaChars + 1)
      const { stream } = createRecordingStream([[text('a'), text(large), text('b')]])
      const iterator = batchesOf(stream)
      const lengths: number[][] = []
      for (let batch = await iterator.nextBatch(); batch; batch = await iterator.nextBatch())
        lengths.push(batch.map((event) => (event.type === 'text-delta' ? event.text.length : -1)))
      expect(lengths).toEqual([[1], [maxDeltaChars], [1], [1]])
    })

    it('throws a failure once, converted, after the events read before it', async () => {
      const { stream, record } = createRecordingStream([[text('a')], new Error('cut')])
      const iterator = batchesOf(stream)
      expect(await iterator.nextBatch()).toEqual([text('a')])
      await expect(iterator.nextBatch()).rejects.toThrow('converted: cut')
      expect(await iterator.nextBatch()).toBeUndefined()
      expect(record.closed).toEqual([false])
    })

    it('makes a return() called during a batch read wait for it', async () => {
      const { stream, record } = createRecordingStream([[text('a')], [text('b')]])
      const iterator = batchesOf(stream)
      const first = iterator.nextBatch()
      const returned = iterator.return?.()
      expect(await first).toEqual([text('a')])
      expect(await returned).toEqual({ value: undefined, done: true })
      expect(await iterator.nextBatch()).toBeUndefined()
      expect(record.closed).toEqual([false])
    })

    it('hands out every event once, in order, whatever mix of next() and nextBatch() reads it', async () => {
      const reasoning = (value: string): ProviderEvent => ({ type: 'reasoning-delta', text: value })
      const event = fc.oneof(
        fc.string({ maxLength: 3 }).map(text),
        fc.string({ maxLength: 3 }).map(reasoning),
        fc.constant(text('y'.repeat(maxDeltaChars + 2))),
        fc.constant<ProviderEvent>({ type: 'finish', reason: 'stop' }),
      )
      // What must survive joining: each kind's text in order, and the order of the kinds (a run of
      // one kind counts once: joining makes fewer events of it, the longest-delta bound more).
      const kindOf = (item: ProviderEvent) =>
        item.type === 'text-delta' ? 'T' : item.type === 'reasoning-delta' ? 'R' : 'F'
      const project = (events: readonly ProviderEvent[]) => ({
        text: events.map((item) => (item.type === 'text-delta' ? item.text : '')).join(''),
        reasoning: events.map((item) => (item.type === 'reasoning-delta' ? item.text : '')).join(''),
        kinds: events
          .map(kindOf)
          .join('')
          .replace(/(T)T+|(R)R+/g, '$1$2'),
      })
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(event, { maxLength: 5 }), { maxLength: 5 }),
          fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }),
          async (reads, choices) => {
            const { stream } = createRecordingStream(reads.map((read) => [...read]))
            const iterator = batchesOf(stream)
            const seen: ProviderEvent[] = []
            for (let call = 0; ; call++) {
              if (choices[call % choices.length]) {
                const batch = await iterator.nextBatch()
                if (!batch) break
                expect(batch.length).toBeGreaterThan(0)
                batch.forEach((item, index) => {
                  if (item.type === 'text-delta' || item.type === 'reasoning-delta')
                    expect(item.text.length).toBeLessThanOrEqual(maxDeltaChars)
                  // Joined as far as the longest delta allows: two deltas of one kind side by side
                  // only when together they are longer.
                  const previous = batch[index - 1]
                  if (
                    previous?.type === item.type &&
                    (item.type === 'text-delta' || item.type === 'reasoning-delta') &&
                    (previous.type === 'text-delta' || previous.type === 'reasoning-delta')
                  )
                    expect(previous.text.length + item.text.length).toBeGreaterThan(maxDeltaChars)
                })
                seen.push(...batch)
              } else {
                const result = await iterator.next()
                if (result.done) break
                seen.push(result.value)
              }
            }
            expect(project(seen)).toEqual(project(reads.flat()))
          },
        ),
        { numRuns: 200 },
      )
    })
  })
})
