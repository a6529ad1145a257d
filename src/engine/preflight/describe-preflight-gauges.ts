/**
 * Early transcripts (`user_input` with `preflight: true`) as gauges, apart from turns: a prepared
 * turn is a turn only once a final input grants it, and what the unused ones cost (their model
 * requests, and tokens when the model reported them) is counted here and nowhere else. The engine
 * hands them to `createCharpipe`'s `registerGauge` (the server's `/metrics`).
 */
import type { GaugeDefinition } from '../types.js'
import type { PreflightStats } from './preflight-stats.js'

export function describePreflightGauges(read: () => PreflightStats): GaugeDefinition[] {
  return [
    {
      name: 'charpipe_preflights_started_total',
      help: 'Turns prepared from an early transcript (user_input with preflight: true).',
      read: () => [{ value: read().started }],
    },
    {
      name: 'charpipe_preflights_total',
      help: 'Prepared turns by outcome: adopted by the final input, or dropped (changed: other final words; replaced: a newer early transcript; expired: no final input in conversation.preflight_timeout_ms; failed; interrupted).',
      labelNames: ['outcome'],
      read: () => {
        const stats = read()
        return [
          { labels: { outcome: 'adopted' }, value: stats.adopted },
          ...Object.entries(stats.dropped).map(([outcome, value]) => ({ labels: { outcome }, value })),
        ]
      },
    },
    {
      name: 'charpipe_preflights_ignored_total',
      help: 'Early transcripts that prepared nothing: disabled (conversation.preflight false), busy (a reply of the session was running or queued), interval, restarts.',
      labelNames: ['reason'],
      read: () => Object.entries(read().ignored).map(([reason, value]) => ({ labels: { reason }, value })),
    },
    {
      name: 'charpipe_preflight_wasted_requests_total',
      help: 'Model requests of prepared turns that were never adopted (most aborted upstream).',
      read: () => [{ value: read().wastedRequests }],
    },
    {
      name: 'charpipe_preflight_wasted_tokens_total',
      help: 'Tokens the model reported for requests of prepared turns never adopted, by kind (prompt, completion).',
      labelNames: ['kind'],
      read: () => {
        const { prompt, completion } = read().wastedTokens
        return [
          { labels: { kind: 'prompt' }, value: prompt },
          { labels: { kind: 'completion' }, value: completion },
        ]
      },
    },
  ]
}
