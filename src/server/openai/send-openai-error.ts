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

export interface TurnFailure extends Pick<LlmErrorEvent, 'message' | 'status'> {
  /** The turn's error code, or a code of these routes' own (`tool_choice_unmet`). */
  code: string
  /**
   * The error object's `type`, when it is not the code (Open Responses' `model_error`). Not `type`:
   * a turn's `llm_error` event is a failure too, and its `type` names the event.
   */
  errorType?: string
  /** The request field at fault. */
  param?: string
  /** A retry of the same request would meet it again. */
  final?: true
}

/** An interruption by the session's next input ends the reply early; it is not a failure. */
export function isTurnFailure(event: LlmErrorEvent): boolean {
  return event.code !== 'interrupted_by_new_input'
}

/** What a turn that ended without `llm_done` is answered with. */
export const missingDone: TurnFailure = { code: 'internal', message: 'the turn ended without a result' }

/** A failure the same request would meet again: the client's own mistake, or the provider's refusal. */
function isFailureFinal(failure: TurnFailure): boolean {
  if (failure.final) return true
  if (failure.code === 'bad_request' || failure.code === 'invalid_config') return true
  return (
    failure.code === 'upstream_http' && failure.status !== undefined && !isRetryableStatus(failure.status)
  )
}

export function convertToOpenAIError(failure: TurnFailure) {
  return {
    message: failure.message,
    type: failure.errorType ?? failure.code,
    code: failure.code,
    param: failure.param ?? null,
  }
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
