/**
 * A turn's timing for its report (`llm_done.timing`): milliseconds from the turn's start (the
 * `generate` call, queueing included; for an adopted preflight, the final input) to its first
 * display chunk, its first sentence and its end.
 * What a voice character's user feels is the first sentence: speech synthesis starts there.
 */
import type { CharpipeEvent, TurnTiming } from '../../shared/events.js'

export interface TurnTimer {
  /** Notes the first chunk and the first sentence as they go out. */
  observe(event: Pick<CharpipeEvent, 'type'>): void
  report(): TurnTiming
}

const roundToTenth = (milliseconds: number) => Math.round(milliseconds * 10) / 10

export interface CreateTurnTimerOptions {
  /** Where the time is read (the engine's clock, milliseconds). */
  now: () => number
  /** When the turn started on that clock. @default now() */
  startedAt?: number
  /** A prepared turn's head start when its final input adopted it (reported as `preflight_saved_ms`). */
  preflightSavedMs?: number
}

export function createTurnTimer(options: CreateTurnTimerOptions): TurnTimer {
  const { now } = options
  const startedAt = options.startedAt ?? now()
  let firstChunk: number | null = null
  let firstSentence: number | null = null
  return {
    observe(event) {
      if (event.type === 'llm_chunk') firstChunk ??= roundToTenth(now() - startedAt)
      else if (event.type === 'llm_sentence') firstSentence ??= roundToTenth(now() - startedAt)
    },
    report() {
      return {
        first_chunk_ms: firstChunk,
        first_sentence_ms: firstSentence,
        total_ms: roundToTenth(now() - startedAt),
        ...(options.preflightSavedMs === undefined
          ? {}
          : { preflight_saved_ms: roundToTenth(options.preflightSavedMs) }),
      }
    },
  }
}
