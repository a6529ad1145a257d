/**
 * Runs one turn through the `Charpipe` for a server endpoint and records its metrics on the way.
 * Every endpoint goes through here: `streamTurn` for those that await each write (SSE, with
 * backpressure), `relayTurn` for the WebSocket, which sends as events happen.
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

/** Counts the turn and returns what records each of its events in the metrics. */
function observeTurn(options: StreamTurnOptions): (event: CharpipeEvent) => void {
  const { metrics } = options
  const started = performance.now()
  let sawChunk = false
  let sawSentence = false
  metrics.turns.inc({ endpoint: options.endpoint })
  return (event) => {
    if (event.type === 'llm_chunk' && !sawChunk) {
      sawChunk = true
      metrics.timeToFirstChunk.observe((performance.now() - started) / 1000)
    } else if (event.type === 'llm_sentence' && !sawSentence) {
      sawSentence = true
      metrics.timeToFirstSentence.observe((performance.now() - started) / 1000)
    } else if (event.type === 'llm_error') {
      metrics.errors.inc({ code: event.code })
    } else if (event.type === 'llm_done') {
      if (event.timing) metrics.turnDuration.observe(event.timing.total_ms / 1000)
      if (event.usage) {
        metrics.tokens.inc({ kind: 'prompt' }, event.usage.prompt_tokens)
        metrics.tokens.inc({ kind: 'completion' }, event.usage.completion_tokens)
        if (event.usage.cached_tokens) metrics.tokens.inc({ kind: 'cached' }, event.usage.cached_tokens)
      }
    }
  }
}

/** The turn's events, as the engine yields them. */
export async function* streamTurn(options: StreamTurnOptions): AsyncGenerator<CharpipeEvent> {
  const observe = observeTurn(options)
  const generateOptions: GenerateOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onModelCall ? { onModelCall: options.onModelCall } : {}),
  }
  for await (const event of options.charpipe.generate(options.input, generateOptions)) {
    observe(event)
    yield event
  }
}

/** The turn's events handed to `onEvent` as they happen; resolves after `llm_done`. */
export function relayTurn(
  options: StreamTurnOptions & { onEvent: (event: CharpipeEvent) => void },
): Promise<void> {
  const observe = observeTurn(options)
  const { onEvent } = options
  return options.charpipe.run(options.input, {
    onEvent: (event) => {
      observe(event)
      onEvent(event)
    },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onTurnNotStored ? { onTurnNotStored: options.onTurnNotStored } : {}),
  })
}
