/**
 * A turn's timing for its report (`llm_done.timing`): milliseconds from the turn's start (the
 * `generate` call, queueing included; for a turn started ahead of its input, the grant) to its first
 * display chunk, its first sentence and its end.
 * What a voice character's user feels is the first sentence: speech synthesis starts there.
 */
import type { CharpipeEvent } from '../shared/events.js'
import { addHeadStart, type TurnTiming } from '../shared/turn-timing.js'

export interface TurnTimer {
  /** Notes the first chunk and the first sentence as they go out. */
  observe(event: Pick<CharpipeEvent, 'type'>): void
  report(): TurnTiming
}

const roundToTenth = (milliseconds: number) => Math.round(milliseconds * 10) / 10

export interface CreateTurnTimerOptions {
  /** Where the time is read (the engine's clock, milliseconds). */
  now: () => number
  /**
   * When the turn counts from, on that clock, read as each event is timed: a turn started ahead of
   * its input counts from its grant. @default now() at the timer's creation
   */
  readStart?: () => number
  /** How long the turn ran before that, reported with the timing; undefined: not reported. */
  readHeadStartMs?: () => number | undefined
}

export function createTurnTimer(options: CreateTurnTimerOptions): TurnTimer {
  const { now } = options
  const createdAt = now()
  const readStart = options.readStart ?? (() => createdAt)
  let firstChunk: number | null = null
  let firstSentence: number | null = null
  return {
    observe(event) {
      if (event.type === 'llm_chunk') firstChunk ??= roundToTenth(now() - readStart())
      else if (event.type === 'llm_sentence') firstSentence ??= roundToTenth(now() - readStart())
    },
    report() {
      const headStart = options.readHeadStartMs?.()
      const timing = {
        first_chunk_ms: firstChunk,
        first_sentence_ms: firstSentence,
        total_ms: roundToTenth(now() - readStart()),
      }
      return addHeadStart(timing, headStart === undefined ? undefined : roundToTenth(headStart))
    },
  }
}
