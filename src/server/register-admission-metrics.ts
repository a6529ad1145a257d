/**
 * The admission in `/metrics`: what every door let in, and what it refused by door and code
 * (`forbidden`, `rate_limited`, `bad_request`), read from the admission at scrape time.
 */
import { Gauge, type Registry } from 'prom-client'
import type { AdmissionStats } from '../admission/index.js'

export function registerAdmissionMetrics(registry: Registry, read: () => AdmissionStats): void {
  new Gauge({
    name: 'charpipe_admission_admitted_total',
    help: 'Messages and turns every door (WebSocket, HTTP, /v1, connectors) let in.',
    registers: [registry],
    collect() {
      this.set(read().admitted)
    },
  })
  new Gauge({
    name: 'charpipe_admission_refused_total',
    help: "Messages and turns refused at a door, by door and code: forbidden (not the caller's session), rate_limited (past the caller's budget), bad_request (refused by what it was handed to).",
    labelNames: ['door', 'code'] as const,
    registers: [registry],
    collect() {
      for (const [door, counts] of Object.entries(read().refused))
        for (const [code, count] of Object.entries(counts ?? {})) this.set({ door, code }, count ?? 0)
    },
  })
}
