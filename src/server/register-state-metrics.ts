/**
 * What `/metrics` reads from the product at scrape time rather than from turn events: sessions with
 * a running turn, the cluster's lock waits and remote interrupts, MCP tool calls, early transcripts
 * (preflight), the audience and the admission. Each is a snapshot of state the engine or the
 * admission keeps, and several count what never becomes a turn event (a prepared turn that was
 * dropped, an audience message dropped, a refusal at a door), so a turn observer could not feed them.
 */
import { Gauge, type Registry } from 'prom-client'
import type { Admission } from '../admission/index.js'
import type { ClusterStats } from '../cluster/connect-cluster.js'
import type { Charpipe, ToolCallStats } from '../engine/types.js'
import { registerAdmissionMetrics } from './register-admission-metrics.js'
import { registerAudienceMetrics } from './register-audience-metrics.js'

type PreflightStats = ReturnType<NonNullable<Charpipe['preflightStats']>>

export interface RegisterStateMetricsOptions {
  charpipe: Charpipe
  admission: Pick<Admission, 'stats'>
}

export function registerStateMetrics(registry: Registry, options: RegisterStateMetricsOptions): void {
  const { charpipe } = options
  new Gauge({
    name: 'charpipe_active_sessions',
    help: 'Sessions with a running turn.',
    registers: [registry],
    collect() {
      this.set(charpipe.activeSessions().length)
    },
  })
  const cluster = charpipe.cluster
  if (cluster) registerClusterMetrics(registry, () => cluster.stats())
  if (charpipe.toolCallStats) registerToolCallMetrics(registry, () => charpipe.toolCallStats?.() ?? [])
  const readPreflightStats = charpipe.preflightStats
  if (readPreflightStats) registerPreflightMetrics(registry, () => readPreflightStats.call(charpipe))
  registerAudienceMetrics(registry, () => charpipe.audienceStats())
  registerAdmissionMetrics(registry, () => options.admission.stats())
}

function registerClusterMetrics(registry: Registry, read: () => ClusterStats): void {
  new Gauge({
    name: 'charpipe_cluster_lock_waits_total',
    help: "Turns that waited for their session's lock while a turn of it ran (on any server of the cluster).",
    registers: [registry],
    collect() {
      this.set(read().lockWaits)
    },
  })
  new Gauge({
    name: 'charpipe_cluster_remote_interrupts_total',
    help: 'Turns running here stopped by an interrupt or a new input sent to another server of the cluster.',
    registers: [registry],
    collect() {
      this.set(read().remoteInterrupts)
    },
  })
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

/**
 * Early transcripts (`user_input` with `preflight: true`), apart from turns: a prepared turn is a
 * turn only once a final input grants it, and what the unused ones cost (their model requests, and
 * tokens when the model reported them) is counted here and nowhere else.
 */
function registerPreflightMetrics(registry: Registry, read: () => PreflightStats): void {
  new Gauge({
    name: 'charpipe_preflights_started_total',
    help: 'Turns prepared from an early transcript (user_input with preflight: true).',
    registers: [registry],
    collect() {
      this.set(read().started)
    },
  })
  new Gauge({
    name: 'charpipe_preflights_total',
    help: 'Prepared turns by outcome: adopted by the final input, or dropped (changed: other final words; replaced: a newer early transcript; expired: no final input in conversation.preflight_timeout_ms; failed; interrupted).',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const stats = read()
      this.set({ outcome: 'adopted' }, stats.adopted)
      for (const [outcome, count] of Object.entries(stats.dropped)) this.set({ outcome }, count)
    },
  })
  new Gauge({
    name: 'charpipe_preflights_ignored_total',
    help: 'Early transcripts that prepared nothing: disabled (conversation.preflight false), busy (a reply of the session was running or queued), interval, restarts.',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      for (const [reason, count] of Object.entries(read().ignored)) this.set({ reason }, count)
    },
  })
  new Gauge({
    name: 'charpipe_preflight_wasted_requests_total',
    help: 'Model requests of prepared turns that were never adopted (most aborted upstream).',
    registers: [registry],
    collect() {
      this.set(read().wastedRequests)
    },
  })
  new Gauge({
    name: 'charpipe_preflight_wasted_tokens_total',
    help: 'Tokens the model reported for requests of prepared turns never adopted, by kind (prompt, completion).',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const { prompt, completion } = read().wastedTokens
      this.set({ kind: 'prompt' }, prompt)
      this.set({ kind: 'completion' }, completion)
    },
  })
}
