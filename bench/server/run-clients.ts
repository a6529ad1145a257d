/**
 * The client side of the server benchmark, in its own process: the mock model server and N
 * WebSocket clients. Mock and clients share one clock, so the added latency of each `llm_sentence`
 * is exact: its arrival at the client minus the moment the mock wrote the chunk that completed it.
 * Sentences read `k07s0042。` (index, session). A sentence splitter only knows a sentence has ended
 * when it sees what follows the `。`, so each chunk carries the end of one sentence and the first
 * character of the next (`07s0042。k`): that chunk completes the sentence, and its write is matched
 * to the event by the text.
 */
import { ServerResponse } from 'node:http'
import WebSocket from 'ws'
import { importBuiltTesting } from '../built-package.js'
import { composeOpenAISseChunks } from '../openai-sse-chunks.js'
import { type LevelResult, percentile, summarizeLevel } from './summarize-level.js'

const sentencesPerReply = 40
// One sentence every 200 ms is about 45 characters a second, the pace of a fast hosted model.
const chunkDelayMs = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 200)
const rounds = 1
// Turn starts spread over 5 s (a turn's setup costs the engine a few ms of CPU; 1,000 at the same
// instant would measure a start-up burst, not streaming). Turns stream 8 s, so all overlap.
const rampMs = Number(process.env.BENCH_RAMP_MS ?? 5000)
const { startMockModelServer } = await importBuiltTesting()
const sentencePattern = /(\d{2}s\d{4}。)/g
// Absolute times (ms since the epoch, sub-millisecond), comparable with the server process's.
const now = () => performance.timeOrigin + performance.now()
const sentAt = new Map<string, number>()
const arrivedAt = new Map<string, number>()
// BENCH_DEBUG=1: latency by arrival time (quarter seconds since the round started), to see when a
// tail happens (the ramp of turn starts, a major GC).
const byQuarterSecond: number[][] = []
let roundStartedAt = 0

// Records when the mock writes each sentence chunk (bench-only instrumentation of this process).
const originalWrite = ServerResponse.prototype.write
ServerResponse.prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
  const result = (originalWrite as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) {
    const written = now()
    for (const match of chunk.toString().matchAll(sentencePattern)) sentAt.set(`k${match[1]}`, written)
  }
  return result
} as typeof ServerResponse.prototype.write

const sendToParent = (message: unknown) => process.send!(message)
const nextMessage = <T>(type: string) =>
  new Promise<T>((resolve) => {
    const listener = (message: { type: string } & T) => {
      if (message.type !== type) return
      process.off('message', listener)
      resolve(message)
    }
    process.on('message', listener)
  })

const sessionName = (index: number) => `s${String(index).padStart(4, '0')}`

/** The reply's SSE events: each content chunk ends sentence k and starts sentence k+1. */
function composeReplyChunks(session: string): string[] {
  const pieces = Array.from({ length: sentencesPerReply }, (_, index) => {
    const rest = `${String(index).padStart(2, '0')}${session}。`
    return index === 0 ? `k${rest}k` : index === sentencesPerReply - 1 ? rest : `${rest}k`
  })
  return composeOpenAISseChunks(pieces)
}

const mock = await startMockModelServer({
  respond(record) {
    const messages = (record.body as { messages: { role: string; content: string }[] }).messages
    const session = messages.findLast((message) => message.role === 'user')!.content.slice(0, 5)
    return { rawChunks: composeReplyChunks(session), delayMs: chunkDelayMs }
  },
})
sendToParent({ type: 'mock', url: mock.url })
const { url } = await nextMessage<{ url: string }>('server')

async function openSockets(count: number): Promise<WebSocket[]> {
  const sockets: WebSocket[] = []
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, () => {
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`)
      return new Promise<WebSocket>((resolve, reject) => {
        socket.once('open', () => resolve(socket))
        socket.once('error', reject)
      })
    })
    sockets.push(...(await Promise.all(batch)))
  }
  return sockets
}

async function runRound(
  sockets: WebSocket[],
  result: { added: number[]; errors: number; sentences: number },
) {
  sentAt.clear()
  arrivedAt.clear()
  roundStartedAt = now()
  await Promise.all(
    sockets.map(
      (socket, index) =>
        new Promise<void>((resolve) => {
          const session = sessionName(index)
          let sentences = 0
          const onMessage = (data: WebSocket.RawData) => {
            const arrived = now()
            const event = JSON.parse(data.toString())
            if (event.type === 'llm_sentence') {
              sentences++
              arrivedAt.set(event.text, arrived)
              const sent = sentAt.get(event.text)
              if (sent === undefined) result.errors++
              else {
                result.added.push(arrived - sent)
                if (process.env.BENCH_DEBUG) {
                  const quarter = Math.floor((arrived - roundStartedAt) / 250)
                  byQuarterSecond[quarter] ??= []
                  byQuarterSecond[quarter].push(arrived - sent)
                }
              }
            } else if (event.type === 'llm_error' || event.type === 'error') {
              result.errors++
            } else if (event.type === 'llm_done') {
              if (sentences !== sentencesPerReply || event.interrupted) result.errors++
              result.sentences += sentences
              socket.off('message', onMessage)
              resolve()
            }
          }
          socket.on('message', onMessage)
          socket.once('close', () => {
            result.errors++
            resolve()
          })
          const startDelay = (index / sockets.length) * rampMs
          setTimeout(
            () => socket.send(JSON.stringify({ type: 'user_input', session, text: session })),
            startDelay,
          )
        }),
    ),
  )
}

// A warm-up turn per socket on a few sockets first: the first turns load and compile modules lazily.
{
  const warmUp = await openSockets(10)
  await runRound(warmUp, { added: [], errors: 0, sentences: 0 })
  for (const socket of warmUp) socket.close()
}

const levels = (process.env.BENCH_SESSIONS ?? '100,500,1000').split(',').map(Number)
for (const sessions of levels) {
  sendToParent({ type: 'level-start', sessions })
  await nextMessage('level-ready')
  const sockets = await openSockets(sessions)
  const raw = { added: [] as number[], errors: 0, sentences: 0 }
  const started = performance.now()
  for (let round = 0; round < rounds; round++) await runRound(sockets, raw)
  const seconds = (performance.now() - started) / 1000
  if (process.env.BENCH_DEBUG) {
    const sorted = byQuarterSecond.map((values) => [...values].sort((left, right) => left - right))
    console.error(
      `added p50/p99 (ms) by arrival time: ${sorted
        .map(
          (values, quarter) =>
            `${quarter / 4}s ${percentile(values, 0.5).toFixed(0)}/${percentile(values, 0.99).toFixed(0)}`,
        )
        .join('  ')}`,
    )
    byQuarterSecond.length = 0
  }
  sendToParent({ type: 'level-finished' })
  const { entries } = await nextMessage<{ entries: [string, number][] }>('emissions')
  // The server's share: from the engine emitting the sentence in the server process to its arrival here.
  const serverShare = entries.flatMap(([key, emitted]) => {
    const arrived = arrivedAt.get(key)
    return arrived === undefined ? [] : [arrived - emitted]
  })
  const result: LevelResult = summarizeLevel({ sessions, rounds, seconds, serverShare, ...raw })
  sendToParent({ type: 'level-done', result })
  await nextMessage('level-measured')
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise((resolve) => {
          socket.once('close', resolve)
          socket.close()
        }),
    ),
  )
}
await mock.close()
sendToParent({ type: 'finished' })
process.disconnect()
