/**
 * Early transcripts (`user_input` with `preflight: true`) in `/metrics`, apart from turns: a prepared
 * turn is a turn only once a final input adopts it, and what the unused ones cost (their model
 * requests, and tokens when the model reported them) is counted here and nowhere else.
 */
import { Gauge, type Registry } from 'prom-client'
import type { PreflightStats } from '../engine/preflight/preflight-stats.js'

export function registerPreflightMetrics(registry: Registry, read: () => PreflightStats): void {
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
