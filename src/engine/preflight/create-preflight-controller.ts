/**
 * What `createCharpipe` does with early and final transcripts of a session. An early one (`user_input`
 * with `preflight: true`) starts a prepared turn in the session's lane unless a reply of the session
 * is running or queued there (a preflight never interrupts a reply: it is ignored, and the final
 * input then goes the usual way). A final one takes the prepared turn: with the same words it adopts
 * it (the held events go out at once, under the prepared turn's id, and the turn goes on live);
 * otherwise the prepared turn is dropped, its model request aborted, and the final input runs as a
 * new turn.
 */
import type { CharpipeConfig } from '../../config/schema.js'
import type { TurnInput } from '../../context/types.js'
import type { ObservedLines } from '../observed-lines.js'
import { inputLanguageOf, renderGroupInput } from '../render-group-input.js'
import type { SessionLanes, TurnHandle } from '../session-lanes.js'
import type { PreparedTurns, StartedTurn, StartWithheldTurn } from '../started-turn.js'
import type { GenerateInput } from '../types.js'
import { validateGenerateInput } from '../validate-generate-input.js'
import {
  isAdoptable,
  type OfferResult,
  type PreflightSlots,
  type PreparedTurn,
  unusableReasonOf,
} from './create-preflight-slots.js'
import { preflightKeyOf } from './normalize-preflight-text.js'
import type { PreflightStats } from './preflight-stats.js'

export interface PreflightController extends PreparedTurns {
  /** An early transcript: prepares its turn, or ignores it. Throws BadRequestError for bad input. */
  prepare(raw: GenerateInput): OfferResult
  /** What preflight has done so far (`Charpipe.preflightStats`). */
  stats(): PreflightStats
}

export interface CreatePreflightControllerOptions {
  slots: PreflightSlots
  lanes: SessionLanes
  observedLines: ObservedLines
  readConfig(): CharpipeConfig
  /** Checks and settles the input's character (an unknown one is refused like a final input's). */
  resolveInput?(input: TurnInput): TurnInput
  /** Starts a turn in its session's lane with its authorization withheld (no sink yet). */
  launch: StartWithheldTurn
  /** A final input adopting a prepared turn is a new input of the session (cluster, `interrupt`). */
  onAdopted?(handle: TurnHandle): void
}

export function createPreflightController(options: CreatePreflightControllerOptions): PreflightController {
  const { slots, lanes } = options
  const started = new WeakMap<PreparedTurn, StartedTurn>()

  // A reply of the session is running or waiting: the early transcript must not touch it.
  const isBusy = (session: string) =>
    lanes.repliesOf(session).some((handle) => !handle.controller.signal.aborted)

  const controller: PreflightController = {
    // An early transcript (`preflight: true`) only prepares its turn.
    takesAhead(raw) {
      if (raw?.preflight !== true) return false
      controller.prepare(raw)
      return true
    },
    prepare(raw) {
      const config = options.readConfig()
      const conversation = config.conversation
      if (!conversation.preflight) {
        slots.ignore('disabled')
        return 'disabled'
      }
      const validated = validateGenerateInput(raw, { maxInputChars: conversation.max_input_chars })
      // Observed lines are only looked at: the final input takes them.
      const rendered = renderGroupInput(
        validated,
        options.observedLines.peek(validated.session),
        conversation.group,
        inputLanguageOf(config, validated),
      )
      const input = options.resolveInput ? options.resolveInput(rendered) : rendered
      return slots.offer({
        session: input.session,
        key: preflightKeyOf(input),
        busy: isBusy(input.session),
        settings: {
          timeoutMs: conversation.preflight_timeout_ms,
          maxRestarts: conversation.preflight_max_restarts,
          minIntervalMs: conversation.preflight_min_interval_ms,
        },
        start() {
          const turn = options.launch(input)
          const prepared: PreparedTurn = {
            session: input.session,
            handle: turn.handle,
            input,
            key: preflightKeyOf(input),
          }
          started.set(prepared, turn)
          return prepared
        },
      })
    },
    claim(input, sink) {
      const prepared = slots.take(input.session)
      if (!prepared) return undefined
      if (!isAdoptable(prepared)) {
        slots.drop(prepared, unusableReasonOf(prepared))
        return undefined
      }
      const turn = started.get(prepared)
      // Closed already (it failed unexpectedly): a final input cannot take its events over.
      if (!turn || turn.isDone()) {
        slots.drop(prepared, 'failed')
        return undefined
      }
      if (prepared.key !== preflightKeyOf(input)) {
        slots.drop(prepared, 'changed')
        return undefined
      }
      turn.attach(sink)
      options.onAdopted?.(turn.handle)
      slots.noteAdopted(prepared)
      // From here the prepared turn is the session's reply (interrupts reach it), answering `input`:
      // its held events go out now, before anything newer.
      turn.handle.authorization.grant(input)
      return turn
    },
    stats: () => slots.stats(),
  }
  return controller
}
