/**
 * A provider's event stream over a source of event batches (one batch per network read), written
 * as a plain async iterator instead of an `async function*`: on the per-chunk path an async
 * generator costs a resumption and several promise hops per event, while here an event of a batch
 * already read is handed over as one resolved promise. It behaves as the generator it replaces:
 * nothing starts before the first `next()`; a failure (of `open` or of a read) is converted by
 * `fail`, thrown once, and ends the stream; `return()` waits for a step in flight, then closes;
 * `close` runs once (never for a stream that was not started); a text delta too large for one
 * event is handed on in slices (`yieldInSlices`). Its `nextBatch()` hands over the rest of a batch
 * in one promise (a large delta's slices still one at a time, each after a turn of the event loop),
 * adjacent text (or reasoning) deltas of it joined into one, so a fast model's hundred chunks of one
 * read cost the engine one event; `next()` still hands them out one by one, as they were read.
 */
import { isLargeDelta, maxDeltaChars, yieldInSlices } from './slice-large-delta.js'
import type { ProviderEvent, ProviderEventBatches } from './types.js'

type DeltaEvent = Extract<ProviderEvent, { type: 'text-delta' | 'reasoning-delta' }>

const isDelta = (event: ProviderEvent): event is DeltaEvent =>
  event.type === 'text-delta' || event.type === 'reasoning-delta'

export interface EventBatchSource {
  /** The events of the next network read (possibly none), or `undefined` once the stream is over. */
  next(): Promise<ProviderEvent[] | undefined>
}

export interface IterateEventBatchesOptions {
  /** Sends the request; called on the first `next()`. */
  open(): Promise<EventBatchSource>
  /** The error to throw for a failure of `open` or of a read. */
  fail(error: unknown): unknown
  /** Called once when a started stream ends (`completed`), fails or is left early. */
  close(completed: boolean): void
}

const doneResult = (): IteratorResult<ProviderEvent> => ({ value: undefined, done: true })

export function iterateEventBatches(options: IterateEventBatchesOptions): AsyncIterable<ProviderEvent> {
  let started = false
  let over = false
  let source: EventBatchSource | undefined
  let batch: ProviderEvent[] = []
  let position = 0
  let slices: AsyncIterator<ProviderEvent> | undefined
  // The step in flight: a `next()` or `return()` called meanwhile waits for it, as on a generator.
  let running: Promise<IteratorResult<ProviderEvent>> | undefined

  const end = (completed: boolean) => {
    over = true
    batch = []
    slices = undefined
    options.close(completed)
  }

  const step = async (): Promise<IteratorResult<ProviderEvent>> => {
    try {
      for (;;) {
        if (slices) {
          const slice = await slices.next()
          if (!slice.done) return slice
          slices = undefined
        }
        if (position < batch.length) {
          const event = batch[position++]!
          if (!isLargeDelta(event)) return { value: event, done: false }
          slices = yieldInSlices(event)
          continue
        }
        source ??= await options.open()
        const next = await source.next()
        if (!next) {
          end(true)
          return doneResult()
        }
        batch = next
        position = 0
      }
    } catch (error) {
      const failure = options.fail(error)
      end(false)
      throw failure
    }
  }

  const settle = () => {
    running = undefined
  }

  /**
   * The events of the batch ready now, up to a large delta (which goes through `step`), with
   * adjacent deltas of one kind joined (up to `maxDeltaChars`): what one read brought arrived at one
   * moment, and everything after the provider pays per event, not per character.
   */
  const takeReady = (into: ProviderEvent[]): ProviderEvent[] => {
    if (slices) return into
    while (position < batch.length) {
      const event = batch[position]!
      const delta = isDelta(event) ? event : undefined
      if (delta && delta.text.length > maxDeltaChars) break
      position++
      const last = into.length > 0 ? into[into.length - 1]! : undefined
      if (!delta || last?.type !== delta.type) {
        into.push(event)
        continue
      }
      // A run of deltas of one kind: joined in one string, one event for the run.
      let text = (last as DeltaEvent).text
      if (text.length + delta.text.length > maxDeltaChars) {
        into.push(event)
        continue
      }
      text += delta.text
      while (position < batch.length) {
        const following = batch[position]!
        if (following.type !== delta.type) break
        const piece = (following as DeltaEvent).text
        if (text.length + piece.length > maxDeltaChars) break
        text += piece
        position++
      }
      into[into.length - 1] = { type: delta.type, text }
    }
    return into
  }

  const stepBatch = async (): Promise<ProviderEvent[] | undefined> => {
    const first = await step()
    return first.done ? undefined : takeReady([first.value])
  }

  const iterator: AsyncIterableIterator<ProviderEvent> & ProviderEventBatches = {
    [Symbol.asyncIterator]() {
      return iterator
    },
    next() {
      if (running) return running.then(iterator.next, iterator.next)
      if (over) return Promise.resolve(doneResult())
      started = true
      // The per-chunk path: the next event of a batch already read.
      if (!slices && position < batch.length) {
        const event = batch[position]!
        if (!isLargeDelta(event)) {
          position++
          return Promise.resolve({ value: event, done: false })
        }
      }
      const pending = step()
      running = pending
      pending.then(settle, settle)
      return pending
    },
    nextBatch() {
      if (running) return running.then(iterator.nextBatch, iterator.nextBatch)
      if (over) return Promise.resolve(undefined)
      started = true
      const ready = takeReady([])
      if (ready.length > 0) return Promise.resolve(ready)
      const pending = stepBatch()
      const done = pending.then(doneResult, doneResult)
      running = done
      done.then(settle, settle)
      return pending
    },
    return() {
      const finish = (): IteratorResult<ProviderEvent> => {
        if (over) return doneResult()
        if (!started) {
          over = true
          return doneResult()
        }
        end(false)
        return doneResult()
      }
      return running ? running.then(finish, finish) : Promise.resolve(finish())
    },
  }
  return iterator
}
