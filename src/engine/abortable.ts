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
 * per item, and adding and removing a listener per item costs more than the rest of the race.
 */
export async function forEachUntilAborted<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal,
  visit: (item: T) => void,
): Promise<void> {
  const iterator = iterable[Symbol.asyncIterator]()
  let finished = false
  let rejectPending: ((error: unknown) => void) | undefined
  const onAbort = () => rejectPending?.(abortError(signal))
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    while (true) {
      const next = iterator.next()
      if (signal.aborted) {
        next.catch(() => {})
        throw abortError(signal)
      }
      const result = await new Promise<IteratorResult<T>>((resolve, reject) => {
        rejectPending = reject
        next.then(resolve, reject)
      })
      rejectPending = undefined
      if (result.done) {
        finished = true
        return
      }
      visit(result.value)
    }
  } finally {
    rejectPending = undefined
    signal.removeEventListener('abort', onAbort)
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {})
  }
}
