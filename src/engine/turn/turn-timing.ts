/**
 * A turn's timing for its report (`llm_done.timing`): milliseconds from the turn's start (the
 * `generate` call, queueing included; for a turn started ahead of its input, the grant) to its first
 * display chunk, its first sentence and its end.
 * What a voice character's user feels is the first sentence: speech synthesis starts there.
 */
import { performance } from 'node:perf_hooks'
import type { CharpipeEvent, TurnTiming } from '../../shared/events.js'

export interface TurnTimer {
  /** Notes the first chunk and the first sentence as they go out. */
  observe(event: Pick<CharpipeEvent, 'type'>): void
  report(): TurnTiming
}

const roundToTenth = (milliseconds: number) => Math.round(milliseconds * 10) / 10

/**
 * `readStart`: when the turn counts from (`performance.now()`), read as each event is timed: a turn
 * started ahead of its input counts from its grant. `readHeadStartMs`: how long it ran before that
 * (reported as `preflight_saved_ms`), undefined for a turn started for its input.
 */
export function createTurnTimer(
  readStart: () => number = startingNow(),
  readHeadStartMs: () => number | undefined = () => undefined,
): TurnTimer {
  let firstChunk: number | null = null
  let firstSentence: number | null = null
  return {
    observe(event) {
      if (event.type === 'llm_chunk') firstChunk ??= roundToTenth(performance.now() - readStart())
      else if (event.type === 'llm_sentence') firstSentence ??= roundToTenth(performance.now() - readStart())
    },
    report() {
      const headStart = readHeadStartMs()
      return {
        first_chunk_ms: firstChunk,
        first_sentence_ms: firstSentence,
        total_ms: roundToTenth(performance.now() - readStart()),
        ...(headStart === undefined ? {} : { preflight_saved_ms: roundToTenth(headStart) }),
      }
    },
  }
}

function startingNow(): () => number {
  const startedAt = performance.now()
  return () => startedAt
}
