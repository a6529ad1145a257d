/**
 * What a long run keeps: steady turns through one server in this process, over the mock model, and
 * the V8 heap left after a full collection every 1,000 turns. A heap that grows with the turns, and
 * does not come down when they stop, is memory the server keeps per turn, per session or per
 * connection. WebSocket clients send their turns one after another, across a rotating set of
 * sessions (by default each turn in a session of its own, as many users over a long run), and
 * reconnect every `RECONNECT` turns (a connection's state must go with it). Run:
 * `npm run bench -- soak` (`TURNS`, default 4000; `CLIENTS`, default 4; `SESSIONS` per client,
 * default 1,000,000; `RECONNECT`, default 100; `REPLY_CHARS`, default 600; `IDLE_S` between the last turn and
 * the last figure, default 5; `MEMORY=1`: long-term memory on; `SNAPSHOT=1`: a heap snapshot at
 * the end, in the working folder).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8'
import { runInNewContext } from 'node:vm'
import WebSocket from 'ws'
import { createCharpipe } from '../src/engine/index.js'
import { startServer } from '../src/server/index.js'
import { createLogger } from '../src/shared/logger.js'
import { startMockModelServer } from '../src/testing/index.js'

setFlagsFromString('--expose_gc')
const collect = runInNewContext('gc') as () => void
/** The heap left after full collections: what is held, not garbage not yet collected. */
const liveHeapMb = () => {
  collect()
  collect()
  return Math.round((getHeapStatistics().used_heap_size / 1e6) * 10) / 10
}

const totalTurns = Number(process.env.TURNS ?? 4000)
const clients = Number(process.env.CLIENTS ?? 4)
const sessionsPerClient = Number(process.env.SESSIONS ?? 1_000_000)
const reconnectEvery = Number(process.env.RECONNECT ?? 100)
const replyChars = Number(process.env.REPLY_CHARS ?? 600)
const idleSeconds = Number(process.env.IDLE_S ?? 5)
const memory = process.env.MEMORY === '1'

const sentence = '今天的风很大，我们慢慢地走回家吧。'
const reply = sentence.repeat(Math.ceil(replyChars / sentence.length)).slice(0, replyChars)

const folder = await mkdtemp(join(tmpdir(), 'charpipe-soak-'))
const model = await startMockModelServer({ respond: () => ({ text: reply, chunkSize: 12 }) })
const configPath = join(folder, 'config.yaml')
await writeFile(
  configPath,
  [
    `llm: { provider: custom, base_url: "${model.url}/v1", model: chat-model, max_retries: 0 }`,
    `memory: { enabled: ${memory} }`,
    `storage: { sqlite_path: "${join(folder, 'charpipe.db')}" }`,
    // Steady load from few connections: the per-connection turn limits are not what is measured.
    'server: { limits: { turns_per_minute: 100000, frames_per_second: 100000 } }',
  ].join('\n'),
)
const logger = createLogger({
  level: 'error',
  format: 'json',
  destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
})
const started = await startServer({
  configPath,
  port: 0,
  watchConfig: false,
  logger,
  createCharpipe: (config, owned) => createCharpipe(config, { logger, ...owned }),
})
const url = `${started.url.replace('http', 'ws')}/ws`

const openSocket = async () => {
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  return socket
}
/** Sends one input and resolves at its turn's `llm_done`. */
const runTurn = (socket: WebSocket, session: string, text: string) =>
  new Promise<void>((resolve) => {
    const onMessage = (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; session?: string }
      if (frame.type === 'llm_done' && frame.session === session) {
        socket.off('message', onMessage)
        resolve()
      }
    }
    socket.on('message', onMessage)
    socket.send(JSON.stringify({ type: 'user_input', session, text }))
  })

const rows: Record<string, number | string>[] = []
const startedAt = Date.now()
let turnsDone = 0
const record = (label: string) => {
  // The mock model keeps every request for tests to read: not the server's memory.
  model.requests.length = 0
  rows.push({
    at: label,
    turns: turnsDone,
    live_heap_mb: liveHeapMb(),
    seconds: Math.round((Date.now() - startedAt) / 1000),
  })
}
record('start')
let nextFigure = 1000

const runClient = async (client: number) => {
  let socket = await openSocket()
  for (let turn = 0; turnsDone < totalTurns; turn++) {
    if (turn > 0 && turn % reconnectEvery === 0) {
      socket.close()
      socket = await openSocket()
    }
    await runTurn(socket, `soak-${client}-${turn % sessionsPerClient}`, `第${turn}句`)
    turnsDone++
    if (turnsDone >= nextFigure) {
      nextFigure += 1000
      record(`${turnsDone} turns`)
    }
  }
  socket.close()
}
await Promise.all(Array.from({ length: clients }, (_, client) => runClient(client)))
record('end')
await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000))
record(`idle ${idleSeconds} s`)
console.table(rows)
if (process.env.SNAPSHOT === '1') console.log('heap snapshot:', writeHeapSnapshot())
await started.close()
await model.close()
await rm(folder, { recursive: true, force: true })
