/**
 * A gauge the engine describes (`createCharpipe`'s `registerGauge`) as a prom-client gauge of the
 * server's registry, read at scrape time: the engine names and explains its own state, the server
 * only shows it.
 */
import { Gauge, type Registry } from 'prom-client'
import type { GaugeDefinition } from '../engine/types.js'

export function registerEngineGauge(registry: Registry, gauge: GaugeDefinition): void {
  new Gauge({
    name: gauge.name,
    help: gauge.help,
    labelNames: gauge.labelNames ?? [],
    registers: [registry],
    collect() {
      for (const reading of gauge.read()) {
        if (reading.labels) this.set(reading.labels, reading.value)
        else this.set(reading.value)
      }
    },
  })
}
