/**
 * SPEC R6 under load: a real `charpipe serve` (built package, default stores: SQLite history and
 * long-term memory, memory on) and `charpipe mock-llm`, each in its own child process, so this
 * process holds only the WebSocket clients and its CPU is not the server's.
 *
 * 1. Interrupts: `SESSIONS` (default 200) concurrent sockets, one session each, `TURNS` (default 5)
 *    turns each; one turn in five (so 20%) is interrupted mid-reply, after a number of `llm_chunk`
 *    frames drawn from a seeded generator. Measured on this process's clock: from sending the
 *    `interrupt` frame to receiving that turn's `llm_done`. Goal (SPEC R6): within 50 ms. Between two
 *    turns a session waits `THINK_MS` (default 2,000) ± 50%, the user speaking; replies stream 60
 *    chunks 20 ms apart, so about 40% of the sessions are streaming at any moment. Every turn's
 *    text differs (the session's name in the input, a different draw of sentences in the reply), as
 *    in use: the long-term memory write cannot do its per-text work once for all turns.
 * 2. A giant reply in one chunk: the model sends `GIANT` (default 200,000) characters as a single SSE
 *    event; the server's worst event-loop delay (`monitorEventLoopDelay` in the server process) from
 *    `user_input` to `llm_done`. Goal (SPEC R6, bounded work): at most 50 ms. Two texts: prose (a
 *    sentence every ~20 characters) and unbroken Chinese (no punctuation at all).
 *
 *   npm run bench -- r6
 *   SESSIONS=50 TURNS=3 npm run bench -- r6
 *   ONLY=interrupt | ONLY=giant npm run bench -- r6
 *   BENCH_CPU_PROF=profiles npm run bench -- r6       (CPU profile of the server process)
 *   BENCH_WIRE_TRACE=1 ONLY=interrupt npm run bench -- r6
 *     (also splits each interrupt's time at the server's socket notes, bench/serve/wire-trace.mjs:
 *     the frame waiting to be read, the server's answer to it, the answer reaching this process)
 */
import { loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import WebSocket from 'ws'
import {
  type LoopGap,
  sharedClock,
  startServeProcesses,
  type WireNote,
} from './serve/start-serve-processes.js'

const sessions = Number(process.env.SESSIONS ?? 200)
const turns = Number(process.env.TURNS ?? 5)
const giantSize = Number(process.env.GIANT ?? 200_000)
const giantRounds = Number(process.env.GIANT_ROUNDS ?? 5)
const only = process.env.ONLY
// Between two turns of a session the user speaks: uniform between half and one and a half times this.
const thinkMs = Number(process.env.THINK_MS ?? 2000)

const formatLoad = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(', ')

/** A small seeded generator (mulberry32), so every run interrupts the same turns at the same chunk. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`)
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket))
    socket.once('error', reject)
  })
}

interface TurnOutcome {
  interruptToDoneMs?: number
  error?: string
  interruptedTooLate?: boolean
  /** The interrupt on the clock the server's wire trace uses, and the client socket's port. */
  traced?: TracedInterrupt
}

/** One interrupt on a clock the processes share (ms since the epoch), and its socket's local port. */
interface TracedInterrupt {
  sent: number
  received: number
  port: number
}

/**
 * Each interrupt's time in three steps, from the server's notes of its client sockets: until the
 * server read the socket after the send, until it next wrote to it (the turn's `llm_done` goes out
 * at once), and until this process had the `llm_done`. An interrupt whose notes do not line up is
 * left out.
 */
function splitInterrupts(traced: TracedInterrupt[], notes: WireNote[]): number[][] {
  const byPort = new Map<number, WireNote[]>()
  for (const note of notes) {
    const list = byPort.get(note[3])
    if (list) list.push(note)
    else byPort.set(note[3], [note])
  }
  const steps: number[][] = [[], [], []]
  for (const interrupt of traced) {
    const socketNotes = (byPort.get(interrupt.port) ?? []).sort((left, right) => left[0] - right[0])
    const read = socketNotes.find((note) => note[1] === 'read' && note[0] >= interrupt.sent)
    const written = read && socketNotes.find((note) => note[1] === 'write' && note[0] >= read[0])
    if (!read || !written || written[0] > interrupt.received) continue
    steps[0]!.push(read[0] - interrupt.sent)
    steps[1]!.push(written[0] - read[0])
    steps[2]!.push(interrupt.received - written[0])
  }
  return steps
}

/**
 * One turn on `socket`: sends the input, interrupts once `interruptAfterChunks` of the model's chunks
 * have been shown, if given. Counted in characters: chunks that reached the server in one read come
 * in one `llm_chunk`.
 */
function runTurn(
  socket: WebSocket,
  session: string,
  text: string,
  interruptAfterChunks: number | undefined,
): Promise<TurnOutcome> {
  return new Promise((resolve) => {
    const interruptAt = interruptAfterChunks === undefined ? undefined : interruptAfterChunks * chunkSize
    let characters = 0
    let interruptSentAt: number | undefined
    let interruptSharedAt = 0
    let error: string | undefined
    const onMessage = (data: WebSocket.RawData) => {
      const arrived = performance.now()
      const event = JSON.parse(data.toString()) as {
        type: string
        text?: string
        code?: string
        interrupted?: boolean
      }
      if (event.type === 'llm_chunk') {
        characters += event.text!.length
        if (interruptAt !== undefined && interruptSentAt === undefined && characters >= interruptAt) {
          interruptSentAt = performance.now()
          interruptSharedAt = sharedClock()
          socket.send(JSON.stringify({ type: 'interrupt', session }))
        }
      } else if (event.type === 'llm_error' || event.type === 'error') {
        error ??= event.code ?? event.type
      } else if (event.type === 'llm_done') {
        socket.off('message', onMessage)
        if (interruptSentAt === undefined) return resolve({ error })
        if (!event.interrupted) return resolve({ error, interruptedTooLate: true })
        const port = (socket as unknown as { _socket?: { localPort?: number } })._socket?.localPort ?? 0
        resolve({
          error,
          interruptToDoneMs: arrived - interruptSentAt,
          traced: { sent: interruptSharedAt, received: sharedClock(), port },
        })
      }
    }
    socket.on('message', onMessage)
    socket.send(JSON.stringify({ type: 'user_input', session, text }))
  })
}

// ~17 characters a sentence, 8 characters a chunk, 20 ms apart: a 60-chunk reply streams ~1.2 s.
const sentence = '今天的海风有点凉，我们去看灯塔吧。'
const chunkSize = 8
const normalReply = { text: sentence.repeat(28), chunkSize, delayMs: 20 }
const sentences = [
  sentence,
  '灯塔在港口东边的小山上。',
  '昨天下了一整天的雨，路有点滑。',
  '你上次说想吃海边的烤鱼，还记得吗？',
  '傍晚的时候，渔船会一艘一艘地回来。',
  '我小时候常常在沙滩上捡贝壳。',
  '如果累了，我们就在长椅上坐一会儿。',
  '听说灯塔的守塔人已经八十多岁了。',
  '明天早上可能会有大雾，要小心。',
  '你最喜欢的季节是夏天还是秋天？',
]

/**
 * Replies of the same length and pace as `normalReply`, each a different draw of sentences, so
 * that no two turns store the same text in long-term memory (one text repeated would let the
 * memory write's per-text work be done once for all turns).
 */
function createVariedReplies(count: number, random: () => number) {
  return Array.from({ length: count }, () => {
    let text = ''
    while (text.length < normalReply.text.length) text += sentences[Math.floor(random() * sentences.length)]
    return { ...normalReply, text }
  })
}

async function measureInterrupts(): Promise<void> {
  const replies = createVariedReplies(sessions * turns + 10, createRandom(7))
  const processes = await startServeProcesses({ reply: normalReply, replies })
  const random = createRandom(6)
  try {
    // Warm-up: a few full turns and one interrupted turn (modules load and compile on first use).
    const warmUp = await openSocket(processes.serverUrl)
    for (let turn = 0; turn < 3; turn++) await runTurn(warmUp, 'warm-up', `你好 ${turn}`, undefined)
    await runTurn(warmUp, 'warm-up', '再来', 5)
    warmUp.close()

    const sockets = await Promise.all(Array.from({ length: sessions }, () => openSocket(processes.serverUrl)))
    const samples: number[] = []
    const errorCodes = new Map<string, number>()
    let tooLate = 0
    let interruptsPlanned = 0
    const traced: TracedInterrupt[] = []
    await processes.traceClientSocketsOnly()
    const cpuBefore = await processes.readCpu()
    await processes.resetLoopDelay()
    // This process's own stalls delay what it measures too: reported beside the figures.
    const clientLoop = monitorEventLoopDelay({ resolution: 5 })
    clientLoop.enable()
    const started = performance.now()
    await Promise.all(
      sockets.map(async (socket, index) => {
        const session = `r6-${String(index).padStart(4, '0')}`
        // Turn starts spread over 2 s; then each session talks at its own pace.
        await pause(random() * 2000)
        const interruptedTurn = index % turns
        for (let turn = 0; turn < turns; turn++) {
          const interruptAfter = turn === interruptedTurn ? 3 + Math.floor(random() * 40) : undefined
          if (interruptAfter !== undefined) interruptsPlanned++
          const outcome = await runTurn(
            socket,
            session,
            `${session} 第${turn}个问题：灯塔在哪里？`,
            interruptAfter,
          )
          if (outcome.error) errorCodes.set(outcome.error, (errorCodes.get(outcome.error) ?? 0) + 1)
          if (outcome.interruptedTooLate) tooLate++
          if (outcome.interruptToDoneMs !== undefined) samples.push(outcome.interruptToDoneMs)
          if (outcome.traced) traced.push(outcome.traced)
          await pause(thinkMs * (0.5 + random()))
        }
      }),
    )
    const seconds = (performance.now() - started) / 1000
    const cpuMs = ((await processes.readCpu()) - cpuBefore) / 1000
    const loop = await processes.readLoopDelay()
    clientLoop.disable()
    for (const socket of sockets) socket.close()
    samples.sort((left, right) => left - right)
    const errors = [...errorCodes.values()].reduce((sum, count) => sum + count, 0)
    console.log(
      `\nR6: interrupt → llm_done, ${sessions} WebSocket sessions × ${turns} turns, one turn a session interrupted, ${thinkMs} ms ± 50% between turns`,
    )
    console.log(`load average at the end (1, 5, 15 min): ${formatLoad()}`)
    console.log(
      '| sessions | turns | interrupts measured | p50 (ms) | p99 (ms) | max (ms) | errors | ended before the interrupt | server CPU (s) | server worst loop delay (ms) | client worst loop delay (ms) | wall (s) |',
    )
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    console.log(
      `| ${sessions} | ${sessions * turns} | ${samples.length} of ${interruptsPlanned} | ${percentile(samples, 0.5).toFixed(1)} | ${percentile(samples, 0.99).toFixed(1)} | ${samples.at(-1)?.toFixed(1)} | ${errors} | ${tooLate} | ${(cpuMs / 1000).toFixed(2)} | ${loop.maxMs.toFixed(1)} | ${(clientLoop.max / 1e6).toFixed(1)} | ${seconds.toFixed(1)} |`,
    )
    const gap = (which: LoopGap) =>
      `${which.wallMs.toFixed(1)} ms with ${which.cpuMs.toFixed(1)} ms of the process's CPU in it`
    console.log(
      `server loop gaps (a 2 ms timer): the longest ${gap(loop.worstGap)}; the one with the most CPU ${gap(loop.busiestGap)}`,
    )
    if (process.env.BENCH_WIRE_TRACE) {
      const steps = splitInterrupts(traced, await processes.readWireTrace())
      console.log(`\nWhere an interrupt's time goes (${steps[0]!.length} of ${traced.length} traced), ms:`)
      console.log('| step | p50 | p90 | p99 | max |')
      console.log('| --- | ---: | ---: | ---: | ---: |')
      const names = [
        '`interrupt` sent → the server reads it',
        'the server: frame read → next write to the socket (`llm_done`)',
        'that write → this process has the `llm_done`',
      ]
      names.forEach((name, step) => {
        const values = steps[step]!.sort((left, right) => left - right)
        if (values.length === 0) return
        const cells = [0.5, 0.9, 0.99].map((fraction) => percentile(values, fraction).toFixed(1))
        console.log(`| ${name} | ${cells.join(' | ')} | ${values.at(-1)!.toFixed(1)} |`)
      })
    }
    if (errors > 0) {
      console.log(`errors by code: ${[...errorCodes].map(([code, count]) => `${code} ${count}`).join(', ')}`)
      process.exitCode = 1
    }
  } finally {
    await processes.stop()
  }
}

async function measureGiant(name: string, text: string): Promise<void> {
  const processes = await startServeProcesses({ reply: { text, chunkSize: text.length } })
  try {
    const socket = await openSocket(processes.serverUrl)
    // Warm-up: the first turn loads the stores and compiles the reply path.
    await runTurn(socket, 'warm-up', '你好', undefined)
    const worst: number[] = []
    let failures = 0
    await processes.resetLoopDelay()
    await pause(1000)
    const idle = await processes.readLoopDelay()
    for (let round = 0; round < giantRounds; round++) {
      await processes.resetLoopDelay()
      const outcome = await runTurn(socket, `giant-${round}`, '讲个很长的故事吧', undefined)
      if (outcome.error) failures++
      // The monitor records a stall when its timer next fires: give it the chance.
      await pause(50)
      worst.push((await processes.readLoopDelay()).maxMs)
    }
    socket.close()
    console.log(
      `| ${name} | ${text.length.toLocaleString('en')} | ${idle.maxMs.toFixed(1)} | ${worst.map((value) => value.toFixed(1)).join(', ')} | ${failures} |`,
    )
  } finally {
    await processes.stop()
  }
}

if (only === undefined || only === 'interrupt') await measureInterrupts()
if (only === undefined || only === 'giant') {
  console.log(
    `\nR6: worst event-loop delay of the server, a reply of ${giantSize.toLocaleString('en')} characters in one SSE event`,
  )
  console.log('| text | characters | idle second (noise floor, ms) | worst delay per turn (ms) | errors |')
  console.log('| --- | ---: | ---: | --- | ---: |')
  await measureGiant('prose', sentence.repeat(Math.ceil(giantSize / sentence.length)).slice(0, giantSize))
  const unbroken = '这是一段很长的中文文本没有空格'
  await measureGiant(
    'unbroken Chinese',
    unbroken.repeat(Math.ceil(giantSize / unbroken.length)).slice(0, giantSize),
  )
  console.log(`load average at the end (1, 5, 15 min): ${formatLoad()}`)
}
