/**
 * Prometheus metrics of one server (its own registry, so several servers in one process do not
 * collide): turns by endpoint, and what the turns' own events feed through a turn observer
 * (observe-turn-metrics.ts: errors by code, time to first chunk and first sentence, duration,
 * tokens, recall timeouts); open connections, store failures and timeouts, and prom-client's default
 * process metrics (CPU, memory, handles, GC, event-loop lag: `nodejs_eventloop_lag_*`). What is read from the
 * product at scrape time joins the same registry in register-state-metrics.ts, and the gauges the
 * engine registers itself (early transcripts) through `registerGauge`.
 *
 * Made before the product, so that `observeTurn` and `registerGauge` can be given to `createCharpipe`.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { RegisterGauge, TurnObserver } from '../engine/types.js'
import { onStoreFailure } from '../memory/store-failures.js'
import { createTurnMetricsObserver } from './observe-turn-metrics.js'
import { registerEngineGauge } from './register-engine-gauge.js'

export interface ServerMetrics {
  registry: Registry
  turns: Counter<'endpoint'>
  errors: Counter<'code'>
  timeToFirstChunk: Histogram
  timeToFirstSentence: Histogram
  turnDuration: Histogram
  tokens: Counter<'kind'>
  /** Turns answered without memories because recall missed `memory.recall_timeout_ms`. */
  recallTimeouts: Counter
  connections: Gauge
  storeFailures: Counter<'store' | 'backend' | 'operation' | 'kind'>
  /** Feeds errors, times and tokens from each turn's events: pass it in `createCharpipe`'s `observers`. */
  observeTurn: TurnObserver
  /** Takes the engine's gauges into the registry: pass it as `createCharpipe`'s `registerGauge`. */
  registerGauge: RegisterGauge
  /** Stops counting store failures (the server is closing). */
  close(): void
}

const latencyBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30]

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry()
  const turns = new Counter({
    name: 'charpipe_turns_total',
    help: 'Turns started, by endpoint (ws, sse, openai).',
    labelNames: ['endpoint'] as const,
    registers: [registry],
  })
  const errors = new Counter({
    name: 'charpipe_errors_total',
    help: 'Turn errors (llm_error events), by code.',
    labelNames: ['code'] as const,
    registers: [registry],
  })
  const timeToFirstChunk = new Histogram({
    name: 'charpipe_time_to_first_chunk_seconds',
    help: 'From the start of a turn to its first llm_chunk.',
    buckets: latencyBuckets,
    registers: [registry],
  })
  const timeToFirstSentence = new Histogram({
    name: 'charpipe_time_to_first_sentence_seconds',
    help: 'From the start of a turn to its first llm_sentence.',
    buckets: latencyBuckets,
    registers: [registry],
  })
  const turnDuration = new Histogram({
    name: 'charpipe_turn_duration_seconds',
    help: 'From the start of a turn to its llm_done (llm_done.timing.total_ms).',
    buckets: latencyBuckets,
    registers: [registry],
  })
  const tokens = new Counter({
    name: 'charpipe_tokens_total',
    help: 'Tokens the model reported (llm_done.usage), by kind: prompt, completion, cached (prompt tokens from the cache).',
    labelNames: ['kind'] as const,
    registers: [registry],
  })
  const recallTimeouts = new Counter({
    name: 'charpipe_memory_recall_timeouts_total',
    help: 'Turns whose long-term memory recall missed memory.recall_timeout_ms and went on without memories (llm_done.memory timed_out).',
    registers: [registry],
  })
  const connections = new Gauge({
    name: 'charpipe_websocket_connections',
    help: 'Open WebSocket connections.',
    registers: [registry],
  })
  const storeFailures = new Counter({
    name: 'charpipe_store_failures_total',
    help: 'History and memory store calls that failed (kind error) or missed storage.timeout_ms (kind timeout).',
    labelNames: ['store', 'backend', 'operation', 'kind'] as const,
    registers: [registry],
  })
  const stopCounting = onStoreFailure((failure) =>
    storeFailures.inc({
      store: failure.store,
      backend: failure.backend,
      operation: failure.operation,
      kind: failure.timedOut ? 'timeout' : 'error',
    }),
  )
  // The event-loop lag histogram samples with a timer: at prom-client's default 10 ms an idle server
  // woke 100 times a second for it alone. Every 100 ms still catches any stall that long, and a
  // shorter one in proportion to its length, which over a scrape interval of seconds fills the percentiles.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 })
  return {
    registry,
    turns,
    errors,
    timeToFirstChunk,
    timeToFirstSentence,
    turnDuration,
    tokens,
    recallTimeouts,
    connections,
    storeFailures,
    observeTurn: createTurnMetricsObserver({
      errors,
      timeToFirstChunk,
      timeToFirstSentence,
      turnDuration,
      tokens,
      recallTimeouts,
    }),
    registerGauge: (gauge) => registerEngineGauge(registry, gauge),
    close: stopCounting,
  }
}
