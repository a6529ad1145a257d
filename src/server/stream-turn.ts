/**
 * Runs one turn through the `Charpipe` for a server endpoint and records its metrics on the way.
 * Every endpoint (WebSocket, SSE, OpenAI-compatible) goes through here.
 */
import type { Charpipe, GenerateInput } from '../engine/types.js'
import type { CharpipeEvent } from '../shared/events.js'
import type { ServerMetrics } from './create-server-metrics.js'

export interface StreamTurnOptions {
  charpipe: Charpipe
  input: GenerateInput
  signal?: AbortSignal
  metrics: ServerMetrics
  endpoint: 'ws' | 'sse' | 'openai'
}

/** The turn's events, as the engine yields them. */
export async function* streamTurn(options: StreamTurnOptions): AsyncGenerator<CharpipeEvent> {
  const { metrics } = options
  const started = performance.now()
  let sawChunk = false
  let sawSentence = false
  metrics.turns.inc({ endpoint: options.endpoint })
  for await (const event of options.charpipe.generate(options.input, { signal: options.signal })) {
    if (event.type === 'llm_chunk' && !sawChunk) {
      sawChunk = true
      metrics.timeToFirstChunk.observe((performance.now() - started) / 1000)
    } else if (event.type === 'llm_sentence' && !sawSentence) {
      sawSentence = true
      metrics.timeToFirstSentence.observe((performance.now() - started) / 1000)
    } else if (event.type === 'llm_error') {
      metrics.errors.inc({ code: event.code })
    }
    yield event
  }
}
