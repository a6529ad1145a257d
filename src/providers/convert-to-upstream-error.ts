/**
 * Maps whatever an HTTP client threw (SDK errors, fetch `TypeError`s, body-stream failures) to one
 * `CharpipeError`, and logs failures the way SPEC R1.5 asks: ERROR with the URL for an unreachable
 * upstream, ERROR with status and body excerpt for non-2xx, WARNING for timeouts, and nothing louder
 * than DEBUG for a caller's abort, which is not a failure.
 */

import {
  CharpipeError,
  UpstreamHttpError,
  UpstreamStreamError,
  UpstreamUnreachableError,
} from '../shared/errors.js'
import { excerptErrorBody } from '../shared/excerpt-error-body.js'
import type { Logger } from '../shared/logger.js'
import { scrubSecrets } from '../shared/logger.js'
import type { RequestTimer } from './create-request-timer.js'

export interface ConvertToUpstreamErrorOptions {
  /** The URL that was asked (no query string with secrets: it is scrubbed anyway). */
  url: string
  timer: RequestTimer
  /** Whether the upstream answered: a network failure after that is a broken stream, not unreachable. */
  responded: boolean
}

/** The provider's own error message from an error body (see `excerptErrorBody`). */
export const excerptBody = excerptErrorBody

/** Seconds from `Retry-After` (seconds or an HTTP date) or `retry-after-ms`, when present. */
export function parseRetryAfter(headers: Headers | undefined | null): number | undefined {
  if (!headers) return undefined
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds / 1000
  const value = headers.get('retry-after')
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds
  const date = Date.parse(value)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, (date - Date.now()) / 1000)
}

function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const name = error.constructor?.name ?? ''
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return true
  return error instanceof TypeError && /fetch failed/i.test(error.message)
}

/** A CharpipeError that is `error` or one of its first few causes (an SDK wraps what fetch threw). */
export function findOwnError(error: unknown): CharpipeError | undefined {
  let current = error
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (CharpipeError.isInstance(current)) return current
    current = current.cause
  }
  return CharpipeError.isInstance(current) ? current : undefined
}

export function convertToUpstreamError(
  error: unknown,
  options: ConvertToUpstreamErrorOptions,
): CharpipeError {
  if (options.timer.cause) return options.timer.toError()
  // Ours, or ours wrapped by the SDK (a refused answer of the transport is a connection error to it).
  const own = findOwnError(error)
  if (own) return own
  const status = (error as { status?: unknown } | null)?.status
  if (typeof status === 'number' && status >= 400) {
    // The SDKs keep the parsed JSON body in `error` (absent when the body was not JSON); their
    // `message` may hold the raw text, so it is not used.
    const details = error as { error?: unknown; headers?: Headers }
    return new UpstreamHttpError(status, excerptBody(details.error), {
      cause: error,
      retryAfterSeconds: parseRetryAfter(details.headers),
    })
  }
  if (!options.responded && isConnectionFailure(error)) {
    return new UpstreamUnreachableError(scrubSecrets(options.url), { cause: error })
  }
  const message = error instanceof Error ? error.message : String(error)
  return new UpstreamStreamError(`upstream stream broke: ${scrubSecrets(message)}`, {
    cause: error,
    // Broken before its first chunk, nothing was passed on yet, so trying again is safe.
    retryable: !options.timer.sawChunk,
  })
}

export interface LogUpstreamFailureOptions {
  provider: string
  url: string
}

export function logUpstreamFailure(
  logger: Logger,
  error: CharpipeError,
  options: LogUpstreamFailureOptions,
): void {
  const fields = { provider: options.provider, url: scrubSecrets(options.url), code: error.code }
  switch (error.code) {
    case 'aborted':
      logger.debug(fields, 'upstream request aborted by the caller')
      return
    case 'upstream_timeout':
      logger.warn(fields, error.message)
      return
    case 'upstream_http':
      logger.error(
        {
          ...fields,
          status: error.status,
          body: error instanceof UpstreamHttpError ? error.bodyExcerpt : '',
        },
        `upstream answered HTTP ${error.status}`,
      )
      return
    case 'upstream_unreachable':
      logger.error(fields, `cannot reach upstream at ${fields.url}`)
      return
    default:
      logger.error(fields, error.message)
  }
}
