/**
 * Failures of the OpenAI-compatible routes (`/v1/chat/completions`, `/v1/responses`) as OpenAI's
 * servers answer them: an error object `{message, type, param, code}` with a string `code`, a status
 * from the error's code, and `x-should-retry: false` on a failure a retry cannot mend (a bad
 * request, an unknown model, the provider refusing the server's key or request), which the official
 * SDKs obey instead of retrying by status.
 */
import type { Context } from 'hono'
import { isRetryableStatus } from '../../shared/errors.js'
import type { LlmErrorEvent } from '../../shared/events.js'
import { mapErrorCodeToStatus } from '../error-response.js'

export type TurnFailure = Pick<LlmErrorEvent, 'code' | 'message' | 'status'>

/** An interruption by the session's next input ends the reply early; it is not a failure. */
export function isTurnFailure(event: LlmErrorEvent): boolean {
  return event.code !== 'interrupted_by_new_input'
}

/** What a turn that ended without `llm_done` is answered with. */
export const missingDone: TurnFailure = { code: 'internal', message: 'the turn ended without a result' }

/** A failure the same request would meet again: the client's own mistake, or the provider's refusal. */
function isFailureFinal(failure: TurnFailure): boolean {
  if (failure.code === 'bad_request' || failure.code === 'invalid_config') return true
  return (
    failure.code === 'upstream_http' && failure.status !== undefined && !isRetryableStatus(failure.status)
  )
}

export function convertToOpenAIError(failure: TurnFailure) {
  return { message: failure.message, type: failure.code, code: failure.code, param: null }
}

export function sendOpenAIError(context: Context, failure: TurnFailure): Response {
  if (isFailureFinal(failure)) context.header('x-should-retry', 'false')
  return context.json({ error: convertToOpenAIError(failure) }, mapErrorCodeToStatus(failure.code))
}

/** What a stream that broke unexpectedly sends: the details are in the server log only. */
export const unexpectedStreamFailure = {
  message: 'the turn failed; see the server log',
  type: 'internal',
  code: 'internal',
  param: null,
}
