/**
 * Where one turn's events go: each is completed with the session and the turn id, handed to the
 * event bus and to the caller's sink, with `llm_done` exactly once and last. A turn started ahead of
 * its input has no sink until it is granted (its events are held before they get here).
 */
import type { Speaker } from '../../context/types.js'
import type { CharpipeEvent, TurnTrigger } from '../../shared/events.js'
import { createTurnCloser } from '../close-turn.js'
import type { EventBus } from '../event-bus.js'
import type { EmitTurnEvent, TurnSink } from '../turn-event.js'
import { toCharpipeError } from '../turn-outcome.js'

export interface CreateTurnOutputOptions {
  bus: EventBus
  turn: string
  session: string
  sink: TurnSink | undefined
  /** What started the turn, carried by each of its events. @default { trigger: 'input' } */
  origin?: TurnOrigin
  /** The emotion of a turn closed by an error (read when it closes: the config may have changed). */
  readDefaultEmotion(): string
}

/** What started a turn: an input, or the audience runner (with the messages answered). */
export interface TurnOrigin {
  trigger: TurnTrigger
  replyingTo?: string[]
  /** An audience turn whose messages are all one person's: that person (see `TurnInput.audienceSpeaker`). */
  speaker?: Speaker
}

export interface TurnOutput {
  /** What started the turn. */
  readonly trigger: TurnOrigin['trigger']
  /** Set once the input is validated (the session it names, or `default`). */
  session: string
  emit: EmitTurnEvent
  isDone(): boolean
  /** Sets where the events go (a turn started ahead of its input gets its sink when granted). */
  attach(sink: TurnSink): void
  /** Closes the turn with `llm_error` and an empty `llm_done`. */
  closeWithError(error: unknown): void
}

export function createTurnOutput(options: CreateTurnOutputOptions): TurnOutput {
  const { bus, turn } = options
  const trigger = options.origin?.trigger ?? 'input'
  const replyingTo = options.origin?.replyingTo
  let doneEmitted = false
  let target = options.sink
  const output: TurnOutput = {
    trigger,
    session: options.session,
    emit: (partial) => {
      // Exactly one llm_done, always last: nothing of this turn goes out after it.
      if (doneEmitted) return
      // Every partial is a fresh object made for this call, so it is completed in place: a spread
      // of objects of many shapes is the slowest copy there is, once per chunk.
      const event = partial as CharpipeEvent
      event.session = output.session
      event.turn = turn
      event.trigger = trigger
      if (event.type === 'llm_done') {
        doneEmitted = true
        if (replyingTo) event.replying_to = replyingTo
      }
      if (!target) return
      bus.emit(event)
      target.push(event)
      if (doneEmitted) target.close()
    },
    isDone: () => doneEmitted,
    attach(next) {
      target = next
    },
    // A turn that never ran closes through the same close as one that did (close-turn.ts).
    closeWithError(error) {
      const outcome = {
        displayText: '',
        emotion: options.readDefaultEmotion(),
        sentences: [],
        interrupted: false,
        error: toCharpipeError(error),
      }
      createTurnCloser({ emit: output.emit }).close(outcome, '')
    },
  }
  return output
}
