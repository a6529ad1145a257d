/**
 * Prometheus metrics of one server (its own registry, so several servers in one process do not
 * collide): turns, errors by code, time to first chunk and first sentence, active sessions and
 * connections, store failures and timeouts, and prom-client's default process metrics (CPU, memory,
 * handles, GC, event-loop lag: `nodejs_eventloop_lag_*`); in a cluster, lock waits and interrupts
 * from other servers; early transcripts (preflight) apart from turns; the audience (messages, drops,
 * waits, idle turns).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { AdmissionStats } from '../admission/index.js'
import type { ClusterStats } from '../cluster/connect-cluster.js'
import type { PreflightStats } from '../engine/preflight/preflight-stats.js'
import type { AudienceStatsResult, ToolCallStats } from '../engine/types.js'
import { onStoreFailure } from '../memory/store-failures.js'
import { registerAdmissionMetrics } from './register-admission-metrics.js'
import { registerAudienceMetrics } from './register-audience-metrics.js'
import { registerPreflightMetrics } from './register-preflight-metrics.js'

export interface ServerMetrics {
  registry: Registry
  turns: Counter<'endpoint'>
  errors: Counter<'code'>
  timeToFirstChunk: Histogram
  timeToFirstSentence: Histogram
  turnDuration: Histogram
  tokens: Counter<'kind'>
  connections: Gauge
  storeFailures: Counter<'store' | 'backend' | 'operation' | 'kind'>
  /** Stops counting store failures (the server is closing). */
  close(): void
}

export interface CreateServerMetricsOptions {
  /** Sessions with a running turn, read at scrape time. */
  countActiveSessions: () => number
  /** In a cluster: its counters, read at scrape time. */
  readClusterStats?: () => ClusterStats
  /** Calls of MCP tools, read at scrape time. */
  readToolCallStats?: () => ToolCallStats[]
  /** Early transcripts prepared, adopted and dropped, read at scrape time. */
  readPreflightStats?: () => PreflightStats
  /** Audience messages in, selected, dropped, idle turns and waits, read at scrape time. */
  readAudienceStats?: () => AudienceStatsResult
  /** The admission's counts (src/admission/). */
  readAdmissionStats?: () => AdmissionStats
}

const latencyBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30]

export function createServerMetrics(options: CreateServerMetricsOptions): ServerMetrics {
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
  const connections = new Gauge({
    name: 'charpipe_websocket_connections',
    help: 'Open WebSocket connections.',
    registers: [registry],
  })
  new Gauge({
    name: 'charpipe_active_sessions',
    help: 'Sessions with a running turn.',
    registers: [registry],
    collect() {
      this.set(options.countActiveSessions())
    },
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
  const readClusterStats = options.readClusterStats
  if (readClusterStats) {
    new Gauge({
      name: 'charpipe_cluster_lock_waits_total',
      help: "Turns that waited for their session's lock while a turn of it ran (on any server of the cluster).",
      registers: [registry],
      collect() {
        this.set(readClusterStats().lockWaits)
      },
    })
    new Gauge({
      name: 'charpipe_cluster_remote_interrupts_total',
      help: 'Turns running here stopped by an interrupt or a new input sent to another server of the cluster.',
      registers: [registry],
      collect() {
        this.set(readClusterStats().remoteInterrupts)
      },
    })
  }
  const readToolCallStats = options.readToolCallStats
  if (readToolCallStats) registerToolCallMetrics(registry, readToolCallStats)
  if (options.readPreflightStats) registerPreflightMetrics(registry, options.readPreflightStats)
  if (options.readAudienceStats) registerAudienceMetrics(registry, options.readAudienceStats)
  if (options.readAdmissionStats) registerAdmissionMetrics(registry, options.readAdmissionStats)
  collectDefaultMetrics({ register: registry })
  return {
    registry,
    turns,
    errors,
    timeToFirstChunk,
    timeToFirstSentence,
    turnDuration,
    tokens,
    connections,
    storeFailures,
    close: stopCounting,
  }
}

/** Per tool (and its MCP server): calls, failed calls and seconds spent, totals since the start. */
function registerToolCallMetrics(registry: Registry, read: () => ToolCallStats[]): void {
  const fields = [
    ['charpipe_tool_calls_total', 'Calls of each MCP tool.', 'calls'],
    [
      'charpipe_tool_errors_total',
      'Calls of each MCP tool that failed (error answer, timeout, unreachable).',
      'errors',
    ],
    ['charpipe_tool_call_seconds_total', 'Seconds spent in calls of each MCP tool.', 'seconds'],
  ] as const
  for (const [name, help, field] of fields) {
    new Gauge({
      name,
      help,
      labelNames: ['tool', 'server'] as const,
      registers: [registry],
      collect() {
        this.reset()
        for (const entry of read()) this.set({ tool: entry.tool, server: entry.server }, entry[field])
      },
    })
  }
}
