/**
 * Runs one turn through the `Charpipe` for a server endpoint and counts it by endpoint.
 * Every endpoint goes through here: `streamTurn` for the SSE endpoints (what their reader has not
 * read waits within a byte budget: bound-stream-writes.ts), `relayTurn` for the WebSocket, which
 * sends as events happen.
 */
import type { Charpipe, GenerateInput, GenerateOptions } from '../engine/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import type { ServerMetrics } from './create-server-metrics.js'

export interface StreamTurnOptions {
  charpipe: Charpipe
  input: GenerateInput
  signal?: AbortSignal
  metrics: ServerMetrics
  endpoint: 'ws' | 'sse' | 'openai'
  /** Called with the messages of each model call as it is sent. */
  onModelCall?: GenerateOptions['onModelCall']
  /** Called after `llm_done` when the turn's late write did not store it (`turn_not_stored`). */
  onTurnNotStored?: GenerateOptions['onTurnNotStored']
}

/**
 * Counts the turn by endpoint: what the endpoint knows and no event says. Errors, times and tokens
 * come from the turn's events through the metrics' turn observer (observe-turn-metrics.ts).
 */
function countTurn(options: StreamTurnOptions): void {
  options.metrics.turns.inc({ endpoint: options.endpoint })
}

/** The turn's events, as the engine yields them. */
export async function* streamTurn(options: StreamTurnOptions): AsyncGenerator<CharpipeEvent> {
  countTurn(options)
  const generateOptions: GenerateOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onModelCall ? { onModelCall: options.onModelCall } : {}),
  }
  yield* options.charpipe.generate(options.input, generateOptions)
}

/** The turn's events handed to `onEvent` as they happen; resolves after `llm_done`. */
export function relayTurn(
  options: StreamTurnOptions & { onEvent: (event: CharpipeEvent) => void },
): Promise<void> {
  countTurn(options)
  return options.charpipe.run(options.input, {
    onEvent: options.onEvent,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onTurnNotStored ? { onTurnNotStored: options.onTurnNotStored } : {}),
  })
}
