/**
 * `/metrics` fed by the server's turn observer: a product the server makes gets it at creation, a
 * ready product is observed when it was created with the metrics given to the server (its turns,
 * and the gauges the engine registers itself), and every turn the product runs is in the turn
 * metrics, while turns by endpoint count what the endpoints started.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { type CharpipeServer, createServer, createServerMetrics } from '../../src/server/index.js'
import { createFakeCharpipe } from '../../src/testing/create-fake-charpipe.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents } from '../../src/testing/index.js'

let folder: string
let server: CharpipeServer | undefined
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'charpipe-metrics-'))
})
afterEach(async () => {
  await server?.close()
  server = undefined
  await rm(folder, { recursive: true, force: true })
})

const { config } = parseConfig({})
const serverOptions = () => ({
  config,
  configPath: join(folder, 'config.yaml'),
  staticDir: folder,
  watchConfig: false,
})

async function readSeries(series: string): Promise<number | undefined> {
  const text = await (await server!.app.request('http://127.0.0.1/metrics')).text()
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

async function chat(text: string): Promise<void> {
  const response = await server!.app.request('http://127.0.0.1/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  })
  expect(response.status).toBe(200)
  await response.text()
}

describe('server metrics as a turn observer', () => {
  it('a product the server makes is given the observer: its turns are timed, by endpoint or not', async () => {
    let made: Charpipe | undefined
    server = await createServer({
      ...serverOptions(),
      createCharpipe: async (initial, { observers }) => {
        made = createFakeCharpipe({ config: initial, observers })
        return made
      },
    })
    await chat('hi')
    expect(await readSeries('charpipe_turns_total{endpoint="sse"}')).toBe(1)
    expect(await readSeries('charpipe_turn_duration_seconds_count')).toBe(1)
    // A turn no endpoint started (the library's own caller) is a turn of the product all the same.
    await collectEvents(made!.generate({ session: 'direct', text: 'hello' }))
    expect(await readSeries('charpipe_turn_duration_seconds_count')).toBe(2)
    expect(await readSeries('charpipe_time_to_first_sentence_seconds_count')).toBe(2)
    expect(await readSeries('charpipe_turns_total{endpoint="sse"}')).toBe(1)
  })

  it('a ready product created with the metrics it is served with feeds them', async () => {
    const metrics = createServerMetrics()
    const charpipe = createFakeCharpipe({ config, observers: [metrics.observeTurn] })
    server = await createServer({ ...serverOptions(), charpipe, metrics })
    await chat('!error upstream_timeout')
    expect(await readSeries('charpipe_errors_total{code="upstream_timeout"}')).toBe(1)
    expect(await readSeries('charpipe_turn_duration_seconds_count')).toBe(1)
  })

  it("a ready product created with the metrics' gauge registration shows the engine's own gauges", async () => {
    const metrics = createServerMetrics()
    const charpipe = await createCharpipe(makeConfig(), {
      observers: [metrics.observeTurn],
      registerGauge: metrics.registerGauge,
    })
    server = await createServer({ ...serverOptions(), charpipe, metrics })
    expect(await readSeries('charpipe_preflights_started_total')).toBe(0)
    expect(await readSeries('charpipe_preflights_total{outcome="adopted"}')).toBe(0)
    expect(await readSeries('charpipe_preflight_wasted_tokens_total{kind="prompt"}')).toBe(0)
    await server.close()
    server = undefined
    await charpipe.close()
  })

  it('a ready product not created with them: turns still counted by endpoint, no turn metrics', async () => {
    server = await createServer({ ...serverOptions(), charpipe: createFakeCharpipe({ config }) })
    await chat('hi')
    expect(await readSeries('charpipe_turns_total{endpoint="sse"}')).toBe(1)
    expect(await readSeries('charpipe_turn_duration_seconds_count')).toBe(0)
  })
})
