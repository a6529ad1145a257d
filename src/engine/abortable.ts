/**
 * Barge-in must end a turn within milliseconds whatever the upstream does, so every await of the turn
 * is raced against its AbortSignal instead of trusting each stage to notice the abort in time.
 */
import { performance } from 'node:perf_hooks'
import { hasEventBatches } from '../providers/types.js'
import { AbortedError } from '../shared/errors.js'
import { afterNextPoll } from '../shared/next-turn-of-event-loop.js'
import { type ReplyReadPacer, unpacedReplyReads } from './create-reply-read-pacer.js'

/** Items handed to `visit` between two looks at the clock, one at a time (a source without batches). */
const itemsPerClockCheck = 64
/**
 * Longest stretch the loop keeps the event loop when the source has items ready without waiting
 * (a fast upstream that delivered a megabyte at once): past it, the next pull waits for the loop's
 * next poll (`afterNextPoll`), so other sessions' frames and timers get their turn. 6 ms rather than
 * 10 (four alternated pairs each): a 32,000-character reply's worst stall 8.5–12.5 ms against
 * 9.5–21.2, and the stress bench's interrupt p99 44.7–52.8 ms against 48.7–60.0.
 */
const maxBusyMs = 6
/**
 * A batch that comes this long after the last one was visited came after a wait (the network, other
 * work): it starts a busy stretch of its own. One that comes sooner was ready at once (data the
 * reader had already buffered) and goes on with the stretch of the one before.
 */
const restMs = 1

export interface ForEachUntilAbortedOptions {
  /** The clock busy stretches are measured on (ms). @default performance.now */
  now?: () => number
  /**
   * The share of each turn of the event loop that all streaming turns' batches are visited in
   * (create-reply-read-pacer.ts): a batch that finds it spent waits for the loop's check phase.
   * @default every batch visited at once
   */
  pacer?: ReplyReadPacer
}

function abortError(signal: AbortSignal): AbortedError {
  return new AbortedError('the turn was interrupted', { cause: signal.reason })
}

/** Resolves like `promise`, or rejects with `AbortedError` as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(abortError(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * Calls `visit` for each item of `iterable` until it ends or `signal` aborts (then rejects with
 * `AbortedError` at once). The source is told to stop with `return()`, not awaited: a source that
 * ignores it cannot hold us. A callback rather than a generator, and one abort listener for the
 * whole iteration: this is the per-chunk path, where each generator layer costs promises and ticks
 * per item, and adding and removing a listener per item costs more than the rest of the race. The
 * loop is written as `then` callbacks, not `await`: one promise per item, the source's own. Items
 * that are ready at once (a burst the network delivered together) are handed over for at most
 * `maxBusyMs` before the loop lets the event loop run. A source whose iterator has `nextBatch()`
 * (the built-in providers' streams) is read a batch at a time: one promise per network read, not
 * per item; an abort while a batch is being visited (a visit that interrupts the turn) stops it
 * before the next item. With a `pacer`, a batch is visited within the share of the event loop that
 * all streaming turns' batches take together, or waits for the loop's check phase.
 */
export function forEachUntilAborted<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal,
  visit: (item: T) => void,
  options: ForEachUntilAbortedOptions = {},
): Promise<void> {
  const now = options.now ?? (() => performance.now())
  const pacer = options.pacer ?? unpacedReplyReads
  return new Promise<void>((resolve, reject) => {
    const iterator = iterable[Symbol.asyncIterator]()
    let settled = false
    const settle = (error?: unknown) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      if (error === undefined) return resolve()
      void Promise.resolve(iterator.return?.()).catch(() => {})
      reject(error)
    }
    const onAbort = () => settle(abortError(signal))
    let sinceClockCheck = 0
    let lastYield = now()
    const onResult = (result: IteratorResult<T>) => {
      if (settled) return
      if (result.done) return settle()
      try {
        visit(result.value)
      } catch (error) {
        return settle(error)
      }
      if (++sinceClockCheck >= itemsPerClockCheck) {
        sinceClockCheck = 0
        const time = now()
        if (time - lastYield > maxBusyMs) {
          lastYield = time
          afterNextPoll(pull)
          return
        }
      }
      pull()
    }
    const onFailure = (error: unknown) => settle(error ?? new Error('the source failed'))
    const batches = hasEventBatches(iterator) ? iterator : undefined
    let batch: readonly T[] = []
    let position = 0
    // A batch's items are a network read's events, text deltas joined up to thousands of characters
    // each: the clock is read after every one, as one may take milliseconds to visit.
    let stretchStart = 0
    let lastVisitEnd = Number.NEGATIVE_INFINITY
    // The last visit's length: the next is taken to be as long, so a stretch stops before a visit
    // that would carry it past `maxBusyMs` (a visit of 4,096 characters takes milliseconds while
    // the code is not yet optimised), not after.
    let lastVisitMs = 0
    const stretchIsFull = (time: number) => time - stretchStart + lastVisitMs > maxBusyMs
    const visitBatch = () => {
      if (settled) return
      if (!pacer.hasRoom()) return pacer.later(resumeBatch)
      const began = now()
      let visitStart = began
      while (position < batch.length) {
        try {
          visit(batch[position++]!)
        } catch (error) {
          pacer.spend(now() - began)
          return settle(error)
        }
        lastVisitEnd = now()
        lastVisitMs = lastVisitEnd - visitStart
        visitStart = lastVisitEnd
        if (settled) return pacer.spend(lastVisitEnd - began)
        if (stretchIsFull(lastVisitEnd) && position < batch.length) {
          pacer.spend(lastVisitEnd - began)
          afterNextPoll(resumeBatch)
          return
        }
      }
      // An empty batch visited nothing (`lastVisitEnd` is from a batch before it).
      if (lastVisitEnd > began) pacer.spend(lastVisitEnd - began)
      pullBatch()
    }
    // After a wait (a long stretch's end, the pacer): a stretch of its own.
    const resumeBatch = () => {
      stretchStart = now()
      visitBatch()
    }
    const onBatch = (next: readonly T[] | undefined) => {
      if (settled) return
      const time = now()
      const readyAtOnce = time - lastVisitEnd <= restMs
      if (!readyAtOnce) {
        stretchStart = time
        lastVisitMs = 0
      }
      // The end of a reply after a full stretch: the turn's end (its history write, its last events)
      // waits for the loop's next poll too.
      if (!next) return readyAtOnce && stretchIsFull(time) ? afterNextPoll(() => settle()) : settle()
      batch = next
      position = 0
      // Ready at once: the time since the last visit is the read's decoding, work of this turn of the loop.
      if (readyAtOnce) pacer.spend(time - lastVisitEnd)
      if (readyAtOnce && stretchIsFull(time)) {
        // Ready at once after a full stretch: the batch waits for the loop's next poll.
        afterNextPoll(resumeBatch)
        return
      }
      visitBatch()
    }
    const pullBatch = () => {
      if (settled) return
      let next: Promise<readonly T[] | undefined>
      try {
        next = batches!.nextBatch()
      } catch (error) {
        return settle(error ?? new Error('the source failed'))
      }
      next.then(onBatch, onFailure)
    }
    const pull = () => {
      if (batches) return pullBatch()
      if (settled) return
      let next: Promise<IteratorResult<T>>
      try {
        next = iterator.next()
      } catch (error) {
        return settle(error ?? new Error('the source failed'))
      }
      next.then(onResult, onFailure)
    }
    if (signal.aborted) return settle(abortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    pull()
  })
}
