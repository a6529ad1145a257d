/**
 * One AbortController per upstream request that fires for three reasons: the caller's signal, no
 * first chunk within `timeoutMs`, or no chunk for `stallTimeoutMs` mid-stream. A single timer is
 * re-armed lazily (it checks the time of the last chunk when it fires) so that marking a chunk costs
 * one clock read instead of a clearTimeout/setTimeout pair per chunk.
 */
import { AbortedError, type CharpipeError, UpstreamTimeoutError } from '../shared/errors.js'

export type AbortCause = 'user' | 'first-chunk-timeout' | 'stall-timeout'

export interface RequestTimerOptions {
  signal?: AbortSignal
  /** No first chunk by then: abort. */
  timeoutMs: number
  /** No chunk for this long after the first: abort. */
  stallTimeoutMs: number
}

export interface RequestTimer {
  /** Aborts for any of the three reasons; pass it to the HTTP client. */
  readonly signal: AbortSignal
  /** Why the signal fired, or `undefined` while it has not. */
  readonly cause: AbortCause | undefined
  /** Whether any chunk has arrived. */
  readonly sawChunk: boolean
  /** Records that a chunk arrived (the first one switches to the stall timeout). */
  markChunk(): void
  /** The error that describes why the request was aborted (call once `cause` is set). */
  toError(): CharpipeError
  /**
   * Stops the timer, detaches from the caller's signal and aborts the request if it is still open,
   * so that a consumer leaving the loop early closes the upstream connection. With `completed` (the
   * body was read to its end) nothing is aborted: there is nothing left to close, and an abort costs
   * an exception object in every HTTP layer listening to the signal.
   */
  dispose(completed?: boolean): void
}

export function createRequestTimer(options: RequestTimerOptions): RequestTimer {
  const controller = new AbortController()
  let cause: AbortCause | undefined
  let sawChunk = false
  let lastChunkAt = 0
  let timer: NodeJS.Timeout | undefined

  const abort = (reason: AbortCause) => {
    if (cause) return
    cause = reason
    if (timer) clearTimeout(timer)
    controller.abort(reason)
  }
  const onUserAbort = () => abort('user')

  const onTimer = () => {
    timer = undefined
    if (!sawChunk) return abort('first-chunk-timeout')
    const idle = Date.now() - lastChunkAt
    if (idle >= options.stallTimeoutMs) return abort('stall-timeout')
    timer = setTimeout(onTimer, options.stallTimeoutMs - idle)
  }

  if (options.signal?.aborted) abort('user')
  else {
    options.signal?.addEventListener('abort', onUserAbort, { once: true })
    timer = setTimeout(onTimer, options.timeoutMs)
  }

  return {
    signal: controller.signal,
    get cause() {
      return cause
    },
    get sawChunk() {
      return sawChunk
    },
    markChunk() {
      lastChunkAt = Date.now()
      if (sawChunk || cause) return
      sawChunk = true
      if (timer) clearTimeout(timer)
      timer = setTimeout(onTimer, options.stallTimeoutMs)
    },
    toError() {
      if (cause === 'first-chunk-timeout') {
        return new UpstreamTimeoutError(`no first chunk from upstream within ${options.timeoutMs} ms`)
      }
      if (cause === 'stall-timeout') {
        return new UpstreamTimeoutError(`upstream stream stalled: no chunk for ${options.stallTimeoutMs} ms`)
      }
      return new AbortedError('the request was aborted')
    },
    dispose(completed) {
      if (timer) clearTimeout(timer)
      timer = undefined
      options.signal?.removeEventListener('abort', onUserAbort)
      if (!completed && !controller.signal.aborted) controller.abort('released')
    },
  }
}
