/**
 * What `/metrics` reads from the product at scrape time rather than from turn events: sessions with
 * a running turn, the cluster's lock waits and remote interrupts, MCP tool calls, the audience and
 * the admission. Each is a snapshot of state the engine or the admission keeps, and several count
 * what never becomes a turn event (an audience message dropped, a refusal at a door), so a turn
 * observer could not feed them. The engine's own gauges (early transcripts) come through
 * `registerGauge` (create-server-metrics.ts) instead.
 */
import { Gauge, type Registry } from 'prom-client'
import type { Admission } from '../admission/index.js'
import type { ClusterStats } from '../cluster/connect-cluster.js'
import type { Charpipe, ToolCallStats } from '../engine/types.js'
import { registerAdmissionMetrics } from './register-admission-metrics.js'
import { registerAudienceMetrics } from './register-audience-metrics.js'

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
      this.set(charpipe.sessions.active().length)
    },
  })
  const cluster = charpipe.cluster
  if (cluster) registerClusterMetrics(registry, () => cluster.stats())
  if (charpipe.inspect.toolCalls)
    registerToolCallMetrics(registry, () => charpipe.inspect.toolCalls?.() ?? [])
  registerAudienceMetrics(registry, () => charpipe.audience.stats())
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
