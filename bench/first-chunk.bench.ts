/**
 * First chunk: what charpipe adds in front of the model's first text. One `charpipe mock-llm` (child
 * process) answers two readers, taking turns round after round in this process:
 *   (a) direct: the official `openai` SDK streaming from the mock; from the request to the first
 *       text delta;
 *   (b) charpipe: a WebSocket client of a real `charpipe serve` (child process, built package,
 *       SQLite history and memory, memory on) pointed at the same mock; from sending `user_input`
 *       to receiving the first `llm_chunk` (context build with history and memory search, the
 *       request, the reply parser, the frame).
 * The difference of the two is charpipe's share. Goal: at most 3 ms at the median.
 *
 * Each timed request starts `SETTLE_MS` (20) after the one before: the server writes a turn into
 * long-term memory after its `llm_done`, and a direct request sent at once was timed while that
 * work took a core from it ((a) 0.7 ms slower in the rounds where it ran second, charpipe's share
 * that much smaller). Both readers wait alike, so both start from a quiet machine, as a person's
 * next turn does.
 *
 * `BENCH_WIRE_TRACE=1` also prints where (b)'s time goes, from when the server's sockets read and
 * wrote (bench/serve/wire-trace.mjs) and when this client sent and received, on a clock the
 * processes share: the frame reaching the server, the server's work up to the model request, the
 * model's answer, the server's work up to the first frames, and those frames reaching the client;
 * for the server's steps, also the server process's CPU time in them.
 *
 *   npm run bench -- first-chunk
 *   ROUNDS=500 npm run bench -- first-chunk
 *   BENCH_WIRE_TRACE=1 npm run bench -- first-chunk
 */
import { loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import OpenAI from 'openai'
import WebSocket from 'ws'
import { sharedClock, startServeProcesses, type WireNote } from './serve/start-serve-processes.js'

const rounds = Number(process.env.ROUNDS ?? 300)
const warmUpRounds = 20
const settleMs = Number(process.env.SETTLE_MS ?? 20)
const reply = { text: '你好！今天的海风有点凉，我们去看灯塔吧。', chunkSize: 4 }

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!
}

/** One timed charpipe round on the shared clock: `user_input` sent, first `llm_chunk` received. */
interface TracedRound {
  sent: number
  received: number
}

/**
 * Each traced round's steps (ms), from the server's socket notes: the first read of a client socket
 * after the send, the first write to the model after it, the model's first read after that, the
 * first write to a client after that, and the client's receipt. A round whose notes do not line up
 * (a step after the receipt) is left out.
 */
function splitRounds(traced: TracedRound[], notes: WireNote[], serverPort: number, modelPort: number) {
  const steps: number[][] = [[], [], [], [], []]
  // For the steps between two of the server's own notes: the server's CPU time in them.
  const cpu: number[][] = [[], [], [], [], []]
  const sorted = [...notes].sort((left, right) => left[0] - right[0])
  const fromClient = (note: WireNote) => note[2] === serverPort
  const toModel = (note: WireNote) => note[3] === modelPort
  let cursor = 0
  const next = (after: number, match: (note: WireNote) => boolean) => {
    while (cursor < sorted.length && sorted[cursor]![0] < after) cursor++
    for (let index = cursor; index < sorted.length; index++) if (match(sorted[index]!)) return sorted[index]!
    return undefined
  }
  for (const round of traced) {
    const frameRead = next(round.sent, (note) => note[1] === 'read' && fromClient(note))
    const requestWritten = frameRead && next(frameRead[0], (note) => note[1] === 'write' && toModel(note))
    const answerRead =
      requestWritten && next(requestWritten[0], (note) => note[1] === 'read' && toModel(note))
    const framesWritten = answerRead && next(answerRead[0], (note) => note[1] === 'write' && fromClient(note))
    if (!frameRead || !requestWritten || !answerRead || !framesWritten || framesWritten[0] > round.received)
      continue
    const times = [
      round.sent,
      frameRead[0],
      requestWritten[0],
      answerRead[0],
      framesWritten[0],
      round.received,
    ]
    for (let step = 0; step < 5; step++) steps[step]!.push(times[step + 1]! - times[step]!)
    const serverNotes = [frameRead, requestWritten, answerRead, framesWritten]
    for (let step = 1; step < 4; step++) cpu[step]!.push(serverNotes[step]![4] - serverNotes[step - 1]![4])
  }
  const sort = (lists: number[][]) => lists.map((values) => values.sort((left, right) => left - right))
  return { steps: sort(steps), cpu: sort(cpu) }
}

const processes = await startServeProcesses({ reply })
try {
  const client = new OpenAI({ baseURL: processes.mockUrl, apiKey: 'bench', maxRetries: 0 })
  async function directFirstText(): Promise<number> {
    const started = performance.now()
    let first: number | undefined
    const stream = await client.chat.completions.create({
      model: 'bench',
      messages: [{ role: 'user', content: '灯塔在哪里？' }],
      stream: true,
    })
    for await (const chunk of stream) {
      if (first === undefined && chunk.choices[0]?.delta?.content) first = performance.now()
    }
    if (first === undefined) throw new Error('the direct reader got no text')
    return first - started
  }

  // A connection may start 120 turns a minute (server.limits): the rounds take turns over several.
  const sockets = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const socket = new WebSocket(`${processes.serverUrl.replace(/^http/, 'ws')}/ws`)
      await new Promise((resolve, reject) => {
        socket.once('open', resolve)
        socket.once('error', reject)
      })
      return socket
    }),
  )
  function charpipeFirstChunk(round: number): Promise<number> {
    const socket = sockets[round % sockets.length]!
    return new Promise((resolve, reject) => {
      let first: number | undefined
      let started = 0
      let sentAt = 0
      const onMessage = (data: WebSocket.RawData) => {
        const arrived = performance.now()
        const event = JSON.parse(data.toString()) as {
          type: string
          code?: string
          message?: string
          timing?: { first_chunk_ms: number | null }
        }
        if (event.type === 'llm_chunk' && first === undefined) {
          first = arrived
          if (round >= warmUpRounds) traced.push({ sent: sentAt, received: sharedClock() })
        } else if (event.type === 'llm_error' || event.type === 'error') {
          socket.off('message', onMessage)
          reject(new Error(`charpipe answered ${event.code ?? event.type}: ${event.message}`))
        } else if (event.type === 'llm_done') {
          socket.off('message', onMessage)
          if (first === undefined) reject(new Error('charpipe sent no llm_chunk'))
          else {
            if (round >= warmUpRounds && event.timing?.first_chunk_ms != null)
              insideEngine.push(event.timing.first_chunk_ms)
            resolve(first - started)
          }
        }
      }
      socket.on('message', onMessage)
      started = performance.now()
      sentAt = sharedClock()
      socket.send(
        JSON.stringify({ type: 'user_input', session: 'first-chunk', text: `第${round}次：灯塔在哪里？` }),
      )
    })
  }

  const direct: number[] = []
  const viaCharpipe: number[] = []
  // The engine's own figure (llm_done.timing): from the turn's start to its first llm_chunk.
  const insideEngine: number[] = []
  const traced: TracedRound[] = []
  let cpuAtWarmUpEnd = 0
  for (let round = 0; round < warmUpRounds + rounds; round++) {
    // Alternate which goes first, so a slow moment of the machine falls on both alike.
    // Every timed request starts from a quiet server: see `settleMs`.
    const settled = async <T>(timed: () => Promise<T>) => {
      await sleep(settleMs)
      return timed()
    }
    const timeDirect = () => settled(directFirstText)
    const timeCharpipe = () => settled(() => charpipeFirstChunk(round))
    const pair =
      round % 2 === 0
        ? [await timeDirect(), await timeCharpipe()]
        : [await timeCharpipe(), await timeDirect()].reverse()
    if (round === warmUpRounds - 1) cpuAtWarmUpEnd = await processes.readCpu()
    if (round < warmUpRounds) continue
    direct.push(pair[0]!)
    viaCharpipe.push(pair[1]!)
  }
  // CPU time moves far less with the machine's load than wall-clock time does.
  const serverCpuPerRoundMs = ((await processes.readCpu()) - cpuAtWarmUpEnd) / 1000 / rounds
  for (const socket of sockets) socket.close()
  const differences = viaCharpipe.map((value, index) => value - direct[index]!)
  // Rounds where (a) ran first, and where (b) did: a gap between them says one order disturbs the other.
  const byOrder = (first: 0 | 1) =>
    percentile(
      differences
        .filter((_, index) => (index + warmUpRounds) % 2 === first)
        .sort((left, right) => left - right),
      0.5,
    )
  const orderGap = `(a) first ${byOrder(0).toFixed(2)}, (b) first ${byOrder(1).toFixed(2)}`
  for (const list of [direct, viaCharpipe, differences, insideEngine])
    list.sort((left, right) => left - right)
  const row = (name: string, values: number[]) =>
    `| ${name} | ${percentile(values, 0.5).toFixed(2)} | ${percentile(values, 0.99).toFixed(2)} |`
  console.log(
    `\nFirst chunk: direct \`openai\` SDK reader against a charpipe WebSocket client, ${rounds} rounds each`,
  )
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((value) => value.toFixed(1))
      .join(', ')}`,
  )
  console.log('| reader | p50 (ms) | p99 (ms) |')
  console.log('| --- | ---: | ---: |')
  console.log(row('(a) `openai` SDK: request → first text', direct))
  console.log(row('(b) charpipe WebSocket: `user_input` → first `llm_chunk`', viaCharpipe))
  console.log(row('(b) − (a), same round', differences))
  console.log(row('(b) inside the engine: turn start → first `llm_chunk` (`llm_done.timing`)', insideEngine))
  console.log(
    `| p50(b) − p50(a), p99(b) − p99(a) | ${(percentile(viaCharpipe, 0.5) - percentile(direct, 0.5)).toFixed(2)} | ${(percentile(viaCharpipe, 0.99) - percentile(direct, 0.99)).toFixed(2)} |`,
  )
  console.log(`(b) − (a) p50 by which ran first: ${orderGap}`)
  console.log(`server CPU per round (user + system, the whole turn): ${serverCpuPerRoundMs.toFixed(2)} ms`)
  if (process.env.BENCH_WIRE_TRACE) {
    const port = (url: string) => Number(new URL(url).port)
    const { steps, cpu } = splitRounds(
      traced,
      await processes.readWireTrace(),
      port(processes.serverUrl),
      port(processes.mockUrl),
    )
    console.log(`\nWhere (b)'s time goes (${steps[0]!.length} of ${traced.length} rounds traced), ms:`)
    console.log("| step | p50 | p90 | the server's CPU in it, p50 |")
    console.log('| --- | ---: | ---: | ---: |')
    const names = [
      '`user_input` sent → the server reads it',
      'the server: frame read → model request written (context, recall, the SDK)',
      'the model answers (request written → answer read)',
      'the server: answer read → first frames written',
      'the first frames written → the client has the first `llm_chunk`',
    ]
    const median = (values: number[]) => (values.length ? percentile(values, 0.5).toFixed(2) : '')
    names.forEach((name, step) => {
      const values = steps[step]!
      if (values.length)
        console.log(
          `| ${name} | ${percentile(values, 0.5).toFixed(2)} | ${percentile(values, 0.9).toFixed(2)} | ${median(cpu[step]!)} |`,
        )
    })
  }
} finally {
  await processes.stop()
}
