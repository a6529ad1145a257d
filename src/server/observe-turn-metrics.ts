/**
 * The server's per-turn metrics as a turn observer (`createCharpipe(config, { observers })`): errors
 * by code, time to first chunk and to first sentence, turn duration, tokens and recalls that missed
 * their budget (`llm_done.memory`), each read from the turn's own events. The times are the turn's report (`llm_done.timing`, on the engine's clock),
 * so `/metrics` and the client see the same numbers.
 *
 * Every turn the engine runs is observed: a client's, an audience or idle turn the server started
 * for a follower, and a turn started ahead of its input once its final input granted it (one not
 * granted sends nothing, so it is not here: its cost is in the preflight counts).
 */
import type { Counter, Histogram } from 'prom-client'
import type { TurnObserver } from '../engine/types.js'
import type { CharpipeEvent, LlmDoneEvent } from '../shared/events.js'

/** The metrics a turn's events feed. */
export interface TurnEventMetrics {
  errors: Counter<'code'>
  timeToFirstChunk: Histogram
  timeToFirstSentence: Histogram
  turnDuration: Histogram
  tokens: Counter<'kind'>
  /** Turns whose recall missed `memory.recall_timeout_ms` (`llm_done.memory: "timed_out"`). */
  recallTimeouts: Counter
}

export function createTurnMetricsObserver(metrics: TurnEventMetrics): TurnObserver {
  // The metrics keep no state per turn: one function serves every turn.
  const record = (event: CharpipeEvent) => {
    if (event.type === 'llm_error') metrics.errors.inc({ code: event.code })
    else if (event.type === 'llm_done') recordDone(metrics, event)
  }
  return () => record
}

function recordDone(metrics: TurnEventMetrics, event: LlmDoneEvent): void {
  const { timing, usage } = event
  if (event.memory === 'timed_out') metrics.recallTimeouts.inc()
  if (timing) {
    if (timing.first_chunk_ms !== null) metrics.timeToFirstChunk.observe(timing.first_chunk_ms / 1000)
    if (timing.first_sentence_ms !== null)
      metrics.timeToFirstSentence.observe(timing.first_sentence_ms / 1000)
    metrics.turnDuration.observe(timing.total_ms / 1000)
  }
  if (usage) {
    metrics.tokens.inc({ kind: 'prompt' }, usage.prompt_tokens)
    metrics.tokens.inc({ kind: 'completion' }, usage.completion_tokens)
    if (usage.cached_tokens) metrics.tokens.inc({ kind: 'cached' }, usage.cached_tokens)
  }
}
