/**
 * The audience in `/metrics`: messages in, selected for a reply, dropped by reason, idle turns, and
 * the wait from a message's arrival to the first sentence of the reply that answered it (p50, p99
 * over the last ten minutes). Counts are read from the engine at scrape time; waits measured since
 * the last scrape are added to the summary then.
 */
import { Gauge, type Registry, Summary } from 'prom-client'
import type { AudienceStatsResult } from '../engine/types.js'

export function registerAudienceMetrics(registry: Registry, read: () => AudienceStatsResult): void {
  let latest = read()
  const wait = new Summary({
    name: 'charpipe_audience_wait_seconds',
    help: "From an audience message's arrival to the first sentence of the reply that answered it.",
    percentiles: [0.5, 0.99],
    maxAgeSeconds: 600,
    ageBuckets: 5,
    registers: [registry],
    collect() {
      latest = read()
      for (const milliseconds of latest.waits) wait.observe(milliseconds / 1000)
    },
  })
  const counts = [
    ['charpipe_audience_messages_total', 'Audience messages received.', () => latest.messagesIn],
    ['charpipe_audience_selected_total', 'Audience messages selected for a reply.', () => latest.selected],
    [
      'charpipe_audience_idle_turns_total',
      'Turns the character took by itself after a quiet spell (audience.idle).',
      () => latest.idleTurns,
    ],
  ] as const
  for (const [name, help, value] of counts) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value())
      },
    })
  }
  new Gauge({
    name: 'charpipe_audience_dropped_total',
    help: 'Audience messages not answered, by reason: queue_full, too_old, duplicate, blocked, moderated, speaker_rate, loop_guard.',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      for (const [reason, count] of Object.entries(latest.dropped)) this.set({ reason }, count)
    },
  })
}
