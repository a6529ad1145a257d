/**
 * Barge-in must end a turn within milliseconds whatever the upstream does, so every await of the turn
 * is raced against its AbortSignal instead of trusting each stage to notice the abort in time.
 */
import { performance } from 'node:perf_hooks'
import { hasEventBatches } from '../providers/types.js'
import { AbortedError } from '../shared/errors.js'

/** Items handed to `visit` between two looks at the clock. */
const itemsPerClockCheck = 64
/**
 * Longest stretch the loop keeps the event loop when the source has items ready without waiting
 * (a fast upstream that delivered a megabyte at once): past it, the next pull waits for
 * `setImmediate`, so other sessions' frames and timers get their turn.
 */
const maxBusyMs = 10

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
 * before the next item.
 */
export function forEachUntilAborted<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal,
  visit: (item: T) => void,
): Promise<void> {
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
    let lastYield = performance.now()
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
        const now = performance.now()
        if (now - lastYield > maxBusyMs) {
          lastYield = now
          setImmediate(pull)
          return
        }
      }
      pull()
    }
    const onFailure = (error: unknown) => settle(error ?? new Error('the source failed'))
    const batches = hasEventBatches(iterator) ? iterator : undefined
    let batch: readonly T[] = []
    let position = 0
    const visitBatch = () => {
      if (settled) return
      while (position < batch.length) {
        try {
          visit(batch[position++]!)
        } catch (error) {
          return settle(error)
        }
        if (settled) return
        if (++sinceClockCheck >= itemsPerClockCheck) {
          sinceClockCheck = 0
          const now = performance.now()
          if (now - lastYield > maxBusyMs) {
            lastYield = now
            setImmediate(visitBatch)
            return
          }
        }
      }
      pullBatch()
    }
    const onBatch = (next: readonly T[] | undefined) => {
      if (settled) return
      if (!next) return settle()
      batch = next
      position = 0
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
