/**
 * A turn as its starters see it (turn/start-turn.ts, and the prepared turns, started ahead of their
 * input): its handle, whether it has closed, and where its events go.
 */
import type { TurnInput } from '../context/types.js'
import type { TurnHandle } from './session-lanes.js'
import type { TurnSink } from './turn-event.js'
import type { GenerateInput } from './types.js'

/** A turn started in its lane: its handle, whether it has closed, and where its events go. */
export interface StartedTurn {
  handle: TurnHandle
  isDone(): boolean
  /** Sets where the turn's events go (a turn started ahead of its input gets its sink when granted). */
  attach(sink: TurnSink): void
}

/** Starts a turn ahead of its input: withheld, queued behind the lane, with no sink yet. */
export type StartWithheldTurn = (input: TurnInput) => StartedTurn

/**
 * Turns started ahead of their input (an early transcript): the engine's one entry offers them every
 * input first.
 */
export interface PreparedTurns {
  /**
   * True when the input only asks to prepare its turn (then it is prepared, or ignored, and nothing
   * goes out for it); throws BadRequestError for such an input that is bad.
   */
  takesAhead(raw: GenerateInput): boolean
  /** An input: the turn prepared for it, granted and now sending to `sink`; undefined when none. */
  claim(input: TurnInput, sink: TurnSink): StartedTurn | undefined
}
