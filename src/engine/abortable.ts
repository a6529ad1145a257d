/**
 * Barge-in must end a turn within milliseconds whatever the upstream does, so every await of the turn
 * is raced against its AbortSignal instead of trusting each stage to notice the abort in time.
 */
import { AbortedError } from '../shared/errors.js'

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
 * loop is written as `then` callbacks, not `await`: one promise per item, the source's own.
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
    const onResult = (result: IteratorResult<T>) => {
      if (settled) return
      if (result.done) return settle()
      try {
        visit(result.value)
      } catch (error) {
        return settle(error)
      }
      pull()
    }
    const onFailure = (error: unknown) => settle(error ?? new Error('the source failed'))
    const pull = () => {
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
