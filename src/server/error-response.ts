/**
 * The one place where errors become HTTP statuses (STYLE.md §4): every route answers
 * `{error:{code, message}}` with the status its code maps to, and never leaks an internal message.
 */
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { CharpipeError, type CharpipeErrorCode, InvalidConfigError } from '../shared/errors.js'
import { scrubSecrets } from '../shared/logger.js'

const statusByCode: Record<CharpipeErrorCode, ContentfulStatusCode> = {
  upstream_unreachable: 502,
  upstream_http: 502,
  upstream_timeout: 504,
  upstream_stream: 502,
  aborted: 499 as ContentfulStatusCode,
  bad_request: 400,
  invalid_config: 400,
  interrupted_by_new_input: 409,
  store_unavailable: 503,
  store_outcome_unknown: 503,
  internal: 500,
}

/** The HTTP status for an error code (`upstream_http` → 502, `bad_request` → 400, …). */
export function mapErrorCodeToStatus(code: string): ContentfulStatusCode {
  return statusByCode[code as CharpipeErrorCode] ?? 500
}

export interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] }
}

/** The JSON body and status for any thrown value; unknown errors become `internal` without details. */
export function convertErrorToResponseBody(error: unknown): {
  status: ContentfulStatusCode
  body: ErrorBody
} {
  if (CharpipeError.isInstance(error)) {
    const body: ErrorBody = { error: { code: error.code, message: scrubSecrets(error.message) } }
    if (error instanceof InvalidConfigError || 'issues' in error) {
      body.error.issues = (error as InvalidConfigError).issues
    }
    return { status: mapErrorCodeToStatus(error.code), body }
  }
  return { status: 500, body: { error: { code: 'internal', message: 'internal server error' } } }
}

/** Answers with the error's JSON body and status. */
export function respondWithError(context: Context, error: unknown): Response {
  const { status, body } = convertErrorToResponseBody(error)
  return context.json(body, status)
}

/** Answers `400 bad_request` (or another status) with a message naming the problem. */
export function respondBadRequest(
  context: Context,
  message: string,
  status: ContentfulStatusCode = 400,
): Response {
  return context.json({ error: { code: 'bad_request', message } } satisfies ErrorBody, status)
}
