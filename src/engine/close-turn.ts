/**
 * The turn's single close path (issue 29): at most one `llm_error`, then exactly one `llm_done`
 * whose text is what was sent. What the turn saw (its own failure, an interruption by a new input,
 * the outcome of its write) is reduced to the one error the client must act on, the write's first:
 * `store_outcome_unknown` (resend with the same id), then `store_unavailable` (not stored), then the
 * reply's own failure, then `interrupted_by_new_input`. A complete reply is closed after its write,
 * so its `llm_done` tells the write's outcome; a write that ends after `llm_done` (a reply cut short)
 * is reported with `turn_not_stored` and always logged.
 */
import { appendText } from '../shared/append-text.js'
import { CharpipeError } from '../shared/errors.js'
import type { CharpipeEvent, TurnNotStoredEvent } from '../shared/events.js'
import type { Logger } from '../shared/logger.js'
import type { TurnWriteResult } from './confirm-turn-write.js'
import type { EmitTurnEvent, TurnEvent } from './turn-event.js'
import type { TurnOutcome } from './turn-outcome.js'
import type { TurnTimer } from './turn-timing.js'

export interface TurnCloser {
  /** Passes an event on, counting the text sent and keeping `llm_error` to one. */
  deliver(event: TurnEvent): void
  /** The one `llm_error` (when there is one) and `llm_done` of a turn with an outcome. */
  close(outcome: TurnOutcome, text: string, write?: TurnWriteResult): void
  /** The close of a turn that failed unexpectedly: `internal` (unless an error went out), the text sent. */
  closeUnexpectedly(emotion: string): void
  /** Whether `llm_done` went out. */
  readonly done: boolean
}

export interface CreateTurnCloserOptions {
  emit: EmitTurnEvent
  /** The turn's timer, reported in `llm_done`; absent for a turn that never ran (a refused input). */
  readTimer?(): TurnTimer
}

function pickError(outcome: TurnOutcome, write: TurnWriteResult | undefined): CharpipeError | undefined {
  const writeError = write?.error
  if (writeError && outcome.error) {
    const message = `${writeError.message} (the reply had failed too: ${outcome.error.message})`
    return new CharpipeError(writeError.code, message, { cause: writeError })
  }
  if (writeError) return writeError
  if (outcome.error) return outcome.error
  if (outcome.reason?.kind === 'new_input') {
    return new CharpipeError('interrupted_by_new_input', 'a new input interrupted this reply')
  }
  return undefined
}

export function createTurnCloser(options: CreateTurnCloserOptions): TurnCloser {
  let sentText = ''
  let errorSent = false
  let done = false
  const deliver = (event: TurnEvent) => {
    if (done) return
    if (event.type === 'llm_chunk') sentText = appendText(sentText, event.text)
    else if (event.type === 'llm_error') {
      if (errorSent) return
      errorSent = true
    } else if (event.type === 'llm_done') done = true
    options.emit(event)
  }
  const sendError = (error: CharpipeError) => {
    const status = error.code === 'upstream_http' ? error.status : undefined
    deliver({
      type: 'llm_error',
      code: error.code,
      message: error.message,
      ...(status === undefined ? {} : { status }),
    } as Extract<CharpipeEvent, { type: 'llm_error' }>)
  }
  return {
    deliver,
    get done() {
      return done
    },
    close(outcome, text, write) {
      const error = pickError(outcome, write)
      if (error) sendError(error)
      deliver({
        type: 'llm_done',
        text,
        emotion: outcome.emotion,
        interrupted: outcome.interrupted,
        ...(options.readTimer ? { timing: options.readTimer().report() } : {}),
        ...(outcome.usage ? { usage: outcome.usage } : {}),
        ...(outcome.answer ? { provider: outcome.answer.provider, model: outcome.answer.model } : {}),
        ...(outcome.memory ? { memory: outcome.memory } : {}),
        ...(outcome.silent ? { silent: true } : {}),
      } as Extract<CharpipeEvent, { type: 'llm_done' }>)
    },
    closeUnexpectedly(emotion) {
      if (!errorSent) sendError(new CharpipeError('internal', 'the turn failed unexpectedly'))
      deliver({ type: 'llm_done', text: sentText, emotion, interrupted: false } as Extract<
        CharpipeEvent,
        { type: 'llm_done' }
      >)
    },
  }
}

export interface ReportTurnNotStoredOptions {
  write: TurnWriteResult
  session: string
  turn: string
  inputId?: string | undefined
  logger: Logger
  report(event: TurnNotStoredEvent): void
}

/** After `llm_done`: a write that did not store the turn is logged and reported, never silent. */
export function reportTurnNotStored(options: ReportTurnNotStoredOptions): void {
  const { write } = options
  if (write.status === 'stored' || !write.error) return
  options.logger.error(
    { session: options.session, turn: options.turn, id: options.inputId, err: write.error },
    write.status === 'unknown'
      ? 'whether an acknowledged turn was stored is not known'
      : 'an acknowledged turn was not stored',
  )
  options.report({
    type: 'turn_not_stored',
    session: options.session,
    turn: options.turn,
    ...(options.inputId === undefined ? {} : { id: options.inputId }),
    code: write.error.code,
    message: write.error.message,
  })
}
