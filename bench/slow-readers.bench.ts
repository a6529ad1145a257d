/**
 * Memory with WebSocket clients that stop reading: 30 sockets each send 8 inputs (one session per
 * socket, queued) and then read nothing, while the model answers each with about 200 KB of text. The
 * server's resident memory before, at its peak while the replies pile up, and after the sockets are
 * gone, with the V8 heap and the memory outside it (`external`, `arrayBuffers`) to tell who holds
 * what RSS keeps (docs/deployment.md, "Memory returned to the system"); how many sockets the server closed at `server.ws_max_buffered_bytes`; and how each turn ended
 * (none may end as `upstream_timeout` because its reader is slow: the model stream is read at its
 * own pace whatever the client does). Run: `npm run bench -- slow-readers` (`BOUND=…` sets
 * `ws_max_buffered_bytes`, default 8 MiB; `SOCKETS`, `TURNS`, `REPLY_KB`, `CHUNK` characters per model
 * chunk, default 400, `DELAY_MS` between chunks, default 1; `READ=1`: clients that read; `AFTER_S`:
 * seconds between the hang-up and the "after" figures, default 3; `TOTAL` sets
 * `server.limits.buffered_bytes_total`, default 256 MiB). The mock model server runs in a child
 * process (bench/turn-cost/mock-process.ts): its pre-rendered replies (~420 bytes a 6-character
 * chunk, 140 MB for 30 replies at once) are not the server's memory. `MOCK=in-process` runs it here.
 * `SNAPSHOT_BUFFERS_MB=N` writes one heap snapshot when the Buffers held first pass N MB.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8'
import { runInNewContext } from 'node:vm'
import WebSocket from 'ws'
import { createCharpipe } from '../src/engine/index.js'
import type { Charpipe } from '../src/engine/types.js'
import { startServer } from '../src/server/index.js'
import { createLogger } from '../src/shared/logger.js'
import { startMockModelServer } from '../src/testing/index.js'

setFlagsFromString('--expose_gc')
const collect = runInNewContext('gc') as () => void
const rssMb = (gc = true) => {
  if (gc) {
    collect()
    collect()
  }
  return Math.round(process.memoryUsage().rss / 1e6)
}
const heapMb = () => Math.round(process.memoryUsage().heapUsed / 1e6)
// Memory outside the V8 heap: `external` (what V8 is told is held by native objects, Buffers
// included) and `arrayBuffers` (the Buffers' and ArrayBuffers' own bytes). Peaks are taken without a
// collection, like the RSS peak.
const externalMb = () => Math.round(process.memoryUsage().external / 1e6)
const arrayBuffersMb = () => Math.round(process.memoryUsage().arrayBuffers / 1e6)
// What V8 has reserved for its heap. Anonymous RSS above it and `external` is memory the allocator
// keeps for the process though nothing uses it.
const heapTotalMb = () => Math.round(process.memoryUsage().heapTotal / 1e6)

const sockets = Number(process.env.SOCKETS ?? 30)
const turnsPerSocket = Number(process.env.TURNS ?? 8)
const replyKb = Number(process.env.REPLY_KB ?? 200)
const bound = Number(process.env.BOUND ?? 8 * 1024 * 1024)
const totalBound = Number(process.env.TOTAL ?? 256 * 1024 * 1024)
// `READ=1`: the same load with clients that read everything (the comparison).
const reading = process.env.READ === '1'
// Characters per model chunk (`CHUNK=6`: a reply in ~34,000 small pieces) and the wait between them.
const chunkSize = Number(process.env.CHUNK ?? 400)
const chunkDelayMs = Number(process.env.DELAY_MS ?? 1)
const afterSeconds = Number(process.env.AFTER_S ?? 3)

// About `replyKb` KB of UTF-8: sentences of 3-byte characters.
const sentence = '今天的风很大，我们慢慢地走回家吧。'
const reply = sentence.repeat(Math.ceil((replyKb * 1024) / Buffer.byteLength(sentence)))

const folder = await mkdtemp(join(tmpdir(), 'charpipe-slow-readers-'))
const mockReply = { text: reply, chunkSize, delayMs: chunkDelayMs }
/** The mock model: its URL, forgetting the requests it recorded, and closing it. */
async function startModel(): Promise<{ url: string; forget(): void; close(): Promise<void> }> {
  if (process.env.MOCK === 'in-process') {
    const model = await startMockModelServer({ respond: () => mockReply })
    // It records every request (each with the session's history, up to 1.4 MB): not the server's memory.
    const forget = () => {
      model.requests.length = 0
    }
    return { url: model.url, forget, close: () => model.close() }
  }
  const here = dirname(fileURLToPath(import.meta.url))
  const child = fork(join(here, 'turn-cost', 'mock-process.ts'), [], { execArgv: ['--import', 'tsx'] })
  const [listening] = (await once(child, 'message')) as [{ url: string }]
  child.send({ type: 'reply', reply: mockReply })
  await once(child, 'message')
  return {
    url: listening.url,
    forget: () => {},
    close: async () => {
      child.send({ type: 'close' })
      await once(child, 'exit')
    },
  }
}
const model = await startModel()
const configPath = join(folder, 'config.yaml')
await writeFile(
  configPath,
  [
    `llm: { provider: custom, base_url: "${model.url}/v1", model: chat-model, max_retries: 0 }`,
    'memory: { enabled: false }',
    'conversation: { on_new_input: queue }',
    `storage: { sqlite_path: "${join(folder, 'charpipe.db')}" }`,
    `server: { ws_max_buffered_bytes: ${bound}, limits: { buffered_bytes_total: ${totalBound} } }`,
  ].join('\n'),
)

// The server's warnings, counted: one "closing a websocket" line per socket closed at the bound.
let closedAtBound = 0
const logger = createLogger({
  level: 'warn',
  format: 'json',
  destination: new Writable({
    write(chunk, _encoding, done) {
      if (String(chunk).includes('closing a websocket')) closedAtBound++
      done()
    },
  }),
})
let charpipe: Charpipe | undefined
const started = await startServer({
  configPath,
  port: 0,
  watchConfig: false,
  logger,
  createCharpipe: async (config, owned) => {
    charpipe = await createCharpipe(config, { logger, ...owned })
    return charpipe
  },
})

const ended = { done: 0, interrupted: 0 }
const errors = new Map<string, number>()
charpipe!.on('llm_done', (event) => {
  ended.done++
  if (event.interrupted) ended.interrupted++
})
charpipe!.on('llm_error', (event) => errors.set(event.code, (errors.get(event.code) ?? 0) + 1))

const before = rssMb()
const heapBefore = heapMb()
const heapTotalBefore = heapTotalMb()
const externalBefore = externalMb()
const arrayBuffersBefore = arrayBuffersMb()
let peak = before
let heapPeak = heapBefore
let externalPeak = externalBefore
let arrayBuffersPeak = arrayBuffersBefore
// The heap left after a full collection, every half second: what is held, not garbage not yet collected.
let liveHeapPeak = heapBefore
let samples = 0
// `SNAPSHOT_BUFFERS_MB=N`: one heap snapshot (in the temporary folder) the first time the Buffers held
// pass N MB, near the peak: what the heap holds beside the readers' frames.
const snapshotAboveMb = Number(process.env.SNAPSHOT_BUFFERS_MB ?? Number.POSITIVE_INFINITY)
let snapshotWritten = false
const sampler = setInterval(() => {
  if (!snapshotWritten && arrayBuffersMb() > snapshotAboveMb) {
    snapshotWritten = true
    console.log(
      'heap snapshot:',
      writeHeapSnapshot(join(tmpdir(), `slow-readers-${process.pid}.heapsnapshot`)),
      process.memoryUsage(),
    )
  }
  if (++samples % 10 === 0) {
    collect()
    liveHeapPeak = Math.max(liveHeapPeak, heapMb())
  }
  model.forget()
  peak = Math.max(peak, rssMb(false))
  heapPeak = Math.max(heapPeak, heapMb())
  externalPeak = Math.max(externalPeak, externalMb())
  arrayBuffersPeak = Math.max(arrayBuffersPeak, arrayBuffersMb())
}, 50)

const clients: WebSocket[] = []
// What the clients read (reading clients: every event the server sent them).
let received = 0
for (let index = 0; index < sockets; index++) {
  const socket = new WebSocket(`${started.url.replace('http', 'ws')}/ws`)
  await new Promise((resolve) => socket.once('open', resolve))
  socket.on('error', () => {})
  socket.on('message', (data: Buffer) => {
    received += data.length
  })
  clients.push(socket)
  for (let turn = 0; turn < turnsPerSocket; turn++) {
    socket.send(JSON.stringify({ type: 'user_input', session: `reader-${index}`, text: `第${turn}句` }))
  }
}
// From here on the clients read nothing: their TCP sockets are paused, the kernel buffers fill.
if (!reading) for (const socket of clients) socket.pause()

const total = sockets * turnsPerSocket
const startedAt = Date.now()
// A hang guard of 5 minutes: every turn ends (answered in full, or cut when its socket is closed).
while (ended.done < total && Date.now() - startedAt < 300_000) {
  await new Promise((resolve) => setTimeout(resolve, 100))
}
const allEndedMs = Date.now() - startedAt
const peakWhileRunning = Math.max(peak, rssMb(false))

for (const socket of clients) socket.terminate()
// Settling time for the server to see every socket close (a figure taken after it, not a check);
// longer shows what an allocator that returns memory on a timer (jemalloc's decay) gives back.
await new Promise((resolve) => setTimeout(resolve, afterSeconds * 1000))
clearInterval(sampler)
model.forget()
const after = rssMb()
const heapAfter = heapMb()
const externalAfter = externalMb()
const arrayBuffersAfter = arrayBuffersMb()
const heapTotalAfter = heapTotalMb()

console.table([
  {
    clients: reading ? 'reading' : 'paused',
    sockets,
    turns: total,
    reply_kb: replyKb,
    chunk_chars: chunkSize,
    ws_max_buffered_bytes: bound,
    buffered_bytes_total: totalBound,
    rss_before_mb: before,
    rss_peak_mb: peakWhileRunning,
    rss_after_mb: after,
    after_s: afterSeconds,
    heap_before_mb: heapBefore,
    heap_peak_mb: heapPeak,
    live_heap_peak_mb: liveHeapPeak,
    heap_after_mb: heapAfter,
    heap_total_before_after_mb: `${heapTotalBefore} / ${heapTotalAfter}`,
    external_before_peak_after_mb: `${externalBefore} / ${externalPeak} / ${externalAfter}`,
    array_buffers_before_peak_after_mb: `${arrayBuffersBefore} / ${arrayBuffersPeak} / ${arrayBuffersAfter}`,
    closed_at_bound: closedAtBound,
    turns_ended: ended.done,
    interrupted: ended.interrupted,
    all_ended_s: (allEndedMs / 1000).toFixed(1),
    received_mb: Math.round(received / 1e6),
  },
])
console.log('llm_error codes:', Object.fromEntries(errors))
// On Linux, the resident memory after, split into anonymous pages (the heaps) and mapped files.
const status = await readFile('/proc/self/status', 'utf8').catch(() => '')
const residentLines = status.split('\n').filter((line) => /^(VmRSS|RssAnon|RssFile):/.test(line))
if (residentLines.length)
  console.log('after:', residentLines.map((line) => line.replace(/\s+/g, ' ')).join(', '))
await started.close()
await model.close()
await rm(folder, { recursive: true, force: true })
