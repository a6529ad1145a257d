/**
 * A turn's timing as `llm_done.timing` carries it (PROTOCOL.md), and the one place that names the
 * head start of a turn started ahead of its input: the engine's timer counts it as held time, the
 * wire calls it `preflight_saved_ms`.
 */

/** Milliseconds from the turn's start (for an adopted preflight, the final input); null when the turn produced no chunk or no sentence. */
export interface TurnTiming {
  first_chunk_ms: number | null
  first_sentence_ms: number | null
  total_ms: number
  /**
   * Only for a turn prepared from an early transcript (`preflight`) and adopted by the final input:
   * how long it had been running when the final input arrived, the head start the user did not wait
   * for. The other fields count from the final input.
   */
  preflight_saved_ms?: number
}

/**
 * A timing with a turn's head start under its wire name: how long a turn started ahead of its input
 * ran before that input granted it (milliseconds; undefined: a turn born granted, nothing added).
 */
export function addHeadStart(
  timing: Omit<TurnTiming, 'preflight_saved_ms'>,
  headStartMs: number | undefined,
): TurnTiming {
  return headStartMs === undefined ? timing : { ...timing, preflight_saved_ms: headStartMs }
}
