/**
 * Server benchmark: 100, 500 and 1,000 concurrent WebSocket sessions, each streaming a 40-sentence
 * reply (one sentence per chunk, 200 ms apart: `BENCH_CHUNK_DELAY_MS`; turns started over 5 s:
 * `BENCH_RAMP_MS`) from the mock model server through the real engine (history in memory, long-term
 * memory off). This process runs the
 * server; a second process runs the mock model server and the clients (see `server/run-clients.ts`).
 * Reports errors, the added latency of `llm_sentence` (client arrival minus the mock's write of the
 * chunk that completed it), the server layer's share of it (engine emission to client arrival), the
 * server process's CPU per sentence and its memory per session. `BENCH_SESSIONS=100,500` picks levels.
 * Both processes run the built package (`dist/`, built first when older than `src/`); the server's
 * runs with the Node flags of `charpipe serve`.
 *
 *   node --import tsx bench/server.bench.ts
 */
import { fork } from 'node:child_process'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { needsServeNodeFlags, relaunchWithServeNodeFlags } from '../src/cli/relaunch-with-node-flags.js'
import { ensureBuilt, importBuiltPackage, importBuiltServer } from './built-package.js'
import type { LevelResult } from './server/summarize-level.js'

// This process is the server: it runs with the Node flags `charpipe serve` runs with, unless it was
// started with a heap setting of its own or with BENCH_NODE_DEFAULTS=1 (V8's defaults, to compare).
if (!process.env.BENCH_NODE_DEFAULTS && needsServeNodeFlags())
  process.exit(await relaunchWithServeNodeFlags())

// The server as it ships: the built package (see built-package.ts).
ensureBuilt()
const { createCharpipe, createLogger, parseConfig } = await importBuiltPackage()
const { createServerMetrics, startServer } = await importBuiltServer()

const here = dirname(fileURLToPath(import.meta.url))
const child = fork(join(here, 'server', 'run-clients.ts'), [], { execArgv: ['--import', 'tsx'] })
const nextMessage = <T>(type: string) =>
  new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`client process exited with ${code}`))
    const listener = (message: { type: string } & T) => {
      if (message.type !== type) return
      child.off('message', listener)
      child.off('exit', onExit)
      resolve(message)
    }
    child.on('message', listener)
    child.once('exit', onExit)
  })

const { url: mockUrl } = await nextMessage<{ url: string }>('mock')
const { config } = parseConfig({
  llm: { provider: 'custom', base_url: `${mockUrl}/v1`, model: 'bench', max_retries: 0 },
  character: { reply_format: 'plain' },
  history: { store: 'memory' },
  memory: { enabled: false },
})
const logger = createLogger({ level: 'warn' })
// The server's metrics observe the product from its creation, as with `charpipe serve`.
const metrics = createServerMetrics()
const charpipe = await createCharpipe(config, {
  logger,
  observers: [metrics.observeTurn],
  registerGauge: metrics.registerGauge,
})
const server = await startServer({
  charpipe,
  metrics,
  config,
  configPath: join(here, '.no-config.yaml'),
  watchConfig: false,
  logger,
  host: '127.0.0.1',
  port: 0,
})
child.send({ type: 'server', url: server.url })

interface MemorySample {
  rss: number
  heap: number
}
const sampleMemory = (): MemorySample => {
  const usage = process.memoryUsage()
  return { rss: usage.rss, heap: usage.heapUsed + usage.external + usage.arrayBuffers }
}

const rows: (LevelResult & {
  rssPerSessionKb: number
  heapPerSessionKb: number
  cpuPerSentenceUs: number
})[] = []
// When the engine hands each sentence to the server (absolute time, comparable with the client process).
const emitted = new Map<string, number>()
charpipe.on('llm_sentence', (event) => emitted.set(event.text, performance.timeOrigin + performance.now()))
for (;;) {
  const message = await Promise.race([
    nextMessage<{ sessions: number }>('level-start'),
    nextMessage('finished').then(() => undefined),
  ])
  if (!message) break
  globalThis.gc?.()
  const baseline = sampleMemory()
  const peak = { ...baseline }
  const timer = setInterval(() => {
    const sample = sampleMemory()
    peak.rss = Math.max(peak.rss, sample.rss)
    peak.heap = Math.max(peak.heap, sample.heap)
  }, 50)
  emitted.clear()
  const cpuBefore = process.cpuUsage()
  child.send({ type: 'level-ready' })
  await nextMessage('level-finished')
  clearInterval(timer)
  const cpu = process.cpuUsage(cpuBefore)
  child.send({ type: 'emissions', entries: [...emitted] })
  const { result } = await nextMessage<{ result: LevelResult }>('level-done')
  rows.push({
    ...result,
    rssPerSessionKb: (peak.rss - baseline.rss) / 1024 / message.sessions,
    heapPerSessionKb: (peak.heap - baseline.heap) / 1024 / message.sessions,
    cpuPerSentenceUs: (cpu.user + cpu.system) / Math.max(1, result.sentences),
  })
  child.send({ type: 'level-measured' })
}

console.log('\nServer: concurrent WebSocket sessions streaming from the mock model server (real engine)')
console.log(
  `load average during the run (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(1))
    .join(', ')}`,
)
console.log(
  '| sessions | sentences | errors | added p50 (ms) | added p99 (ms) | added max (ms) | server share p50 (ms) | server share p99 (ms) | server CPU / sentence (µs) | RSS / session (KiB) | heap / session (KiB) |',
)
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const row of rows) {
  console.log(
    `| ${row.sessions} | ${row.sentences} | ${row.errors} | ${row.addedP50Ms.toFixed(1)} | ${row.addedP99Ms.toFixed(1)} | ${row.addedMaxMs.toFixed(1)} | ${row.serverShareP50Ms.toFixed(1)} | ${row.serverShareP99Ms.toFixed(1)} | ${row.cpuPerSentenceUs.toFixed(0)} | ${row.rssPerSessionKb.toFixed(1)} | ${row.heapPerSessionKb.toFixed(1)} |`,
  )
}
await server.close()
await charpipe.close()
process.exitCode = rows.some((row) => row.errors > 0) ? 1 : 0
