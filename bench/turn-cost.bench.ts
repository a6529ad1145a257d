/**
 * Turn cost: CPU time (`process.cpuUsage`, user + system, every thread of this process) and wall time
 * per turn and per sentence for the real engine (`createCharpipe`, history in memory, long-term memory
 * off), for `reply_format: plain` and `json`, against (a) an in-process provider that yields its
 * chunks at once and (b) provider `custom` pointed at the mock model server in this same process (so
 * the HTTP rows include the mock's own CPU). A one-sentence turn is one chunk; a 40-sentence turn is
 * 40 chunks of one sentence each. Turns run one after another, rotating over 50 sessions so the
 * history has a few turns in it. The paced rows are closer to a server's life (and to the server
 * bench): the mock runs in another process, so their CPU is this process's alone; 100 sessions at
 * once, chunks 20 ms apart, so every chunk is its own network read. `TURNS` (default 500) are
 * measured after `WARMUP` (default 100), once every case has run a warm-up pass; each row is
 * measured `ROUNDS` times (default 3) and its lowest CPU kept. `ONLY=fake`, `http` or `paced` runs
 * those rows only.
 *
 *   node --import tsx bench/turn-cost.bench.ts
 *   TURNS=200 ONLY=http node --import tsx bench/turn-cost.bench.ts
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { parseConfig } from '../src/characters/load-config.js'
import type { CharpipeConfigInput } from '../src/config/schema.js'
import { createCharpipe } from '../src/engine/index.js'
import type { ChatProvider, ProviderEvent } from '../src/providers/types.js'
import { createLogger } from '../src/shared/logger.js'
import { type MockReply, startMockModelServer } from '../src/testing/index.js'
import { composeOpenAISseChunks } from './openai-sse-chunks.js'

type Format = 'plain' | 'json'
type Upstream = 'fake' | 'http' | 'paced'

const turns = Number(process.env.TURNS ?? 500)
const warmup = Number(process.env.WARMUP ?? 100)
const rounds = Number(process.env.ROUNDS ?? 3)
const only = process.env.ONLY
const sessions = 50
// The paced rows: this many turns at once, chunks this far apart (one network read per chunk, as
// from a real model, instead of the unpaced rows' chunks that arrive together).
const concurrency = 100
const chunkDelayMs = 20
const logger = createLogger({ level: 'silent' })

/** The reply's text pieces: each piece is exactly one sentence; json wraps them in the envelope. */
function composePieces(sentences: number, format: Format): string[] {
  const pieces = Array.from({ length: sentences }, (_, index) => `这是第${index + 1}句话，内容不长也不短。`)
  if (format === 'plain') return pieces
  const first = `{"emotion":"开心","text":"${pieces[0]}`
  const wrapped = [first, ...pieces.slice(1)]
  wrapped[wrapped.length - 1] += '"}'
  return wrapped
}

function createInstantProvider(pieces: string[]): ChatProvider {
  const events: ProviderEvent[] = [
    ...pieces.map((text): ProviderEvent => ({ type: 'text-delta', text })),
    { type: 'usage', usage: { inputTokens: 100, outputTokens: pieces.length * 10 } },
    { type: 'finish', reason: 'stop' },
  ]
  return {
    name: 'instant',
    model: 'instant',
    async *streamChat() {
      yield* events
    },
  }
}

/** The paced rows' mock model server, in a child process (started on first use). */
let remote: { url: string; send(message: unknown): Promise<void> } | undefined

async function useRemoteReply(reply: MockReply): Promise<void> {
  if (!remote) {
    const here = dirname(fileURLToPath(import.meta.url))
    const child = fork(join(here, 'turn-cost', 'mock-process.ts'), [], { execArgv: ['--import', 'tsx'] })
    const [listening] = (await once(child, 'message')) as [{ url: string }]
    remote = {
      url: listening.url,
      async send(message) {
        child.send(message as object)
        if ((message as { type: string }).type === 'reply') await once(child, 'message')
      },
    }
  }
  await remote.send({ type: 'reply', reply })
}

interface RowResult {
  row: string
  sentences: number
  cpuPerTurnUs: number
  wallPerTurnUs: number
  cpuPerSentenceUs: number
}

async function measure(
  upstream: Upstream,
  format: Format,
  sentences: number,
  measured = turns,
): Promise<RowResult> {
  const pieces = composePieces(sentences, format)
  const rawChunks = composeOpenAISseChunks(pieces)
  const paced = upstream === 'paced'
  if (paced) await useRemoteReply({ rawChunks, delayMs: chunkDelayMs })
  const mock =
    upstream === 'http' ? await startMockModelServer({ respond: () => ({ rawChunks }) }) : undefined
  const baseUrl = paced ? remote!.url : mock?.url
  const overrides: CharpipeConfigInput = baseUrl
    ? { llm: { provider: 'custom', base_url: `${baseUrl}/v1`, model: 'bench', max_retries: 0 } }
    : {}
  const { config } = parseConfig(
    {
      ...overrides,
      character: { reply_format: format },
      history: { store: 'memory' },
      memory: { enabled: false },
    },
    { logger },
  )
  const charpipe = await createCharpipe(config, {
    logger,
    ...(baseUrl ? {} : { provider: createInstantProvider(pieces) }),
  })
  const runTurn = async (index: number, session = `s${index % sessions}`) => {
    let seen = 0
    for await (const event of charpipe.generate({ text: '讲点什么吧', session })) {
      if (event.type === 'llm_sentence') seen++
      else if (event.type === 'llm_error') throw new Error(`${event.code}: ${event.message}`)
    }
    if (seen !== sentences) throw new Error(`expected ${sentences} sentences, got ${seen}`)
    if (mock && index % 50 === 0) mock.reset()
  }
  const runTurns = async (from: number, count: number) => {
    if (!paced) {
      for (let index = 0; index < count; index++) await runTurn(from + index)
      return
    }
    let next = 0
    const worker = async (session: string) => {
      while (next < count) await runTurn(from + next++, session)
    }
    await Promise.all(Array.from({ length: concurrency }, (_, index) => worker(`p${index}`)))
  }
  await runTurns(0, warmup)
  globalThis.gc?.()
  const cpuBefore = process.cpuUsage()
  const wallBefore = performance.now()
  await runTurns(warmup, measured)
  const wall = (performance.now() - wallBefore) * 1000
  const cpu = process.cpuUsage(cpuBefore)
  await charpipe.close()
  await mock?.close()
  const cpuPerTurnUs = (cpu.user + cpu.system) / measured
  return {
    row: `${upstream} ${format} ${sentences}`,
    sentences,
    cpuPerTurnUs,
    wallPerTurnUs: wall / measured,
    cpuPerSentenceUs: cpuPerTurnUs / sentences,
  }
}

const cases: [Upstream, Format, number][] = []
for (const upstream of ['fake', 'http'] as const) {
  if (only && only !== upstream) continue
  for (const format of ['plain', 'json'] as const) {
    for (const sentences of [1, 40]) cases.push([upstream, format, sentences])
  }
}
if (!only || only === 'paced')
  for (const format of ['plain', 'json'] as const) cases.push(['paced', format, 40])
// One pass over every case first, so the first measured row does not pay for compiling shared code.
for (const [upstream, format, sentences] of cases) await measure(upstream, format, sentences, warmup)
// Each row is measured `ROUNDS` times and its lowest CPU kept: on a shared machine, other processes
// only ever add to a figure.
const rows: RowResult[] = []
for (let round = 0; round < rounds; round++) {
  for (const [index, [upstream, format, sentences]] of cases.entries()) {
    const result = await measure(upstream, format, sentences)
    if (!rows[index] || result.cpuPerTurnUs < rows[index].cpuPerTurnUs) rows[index] = result
  }
}
const labels: Record<Upstream, string> = {
  fake: 'in-process',
  http: 'custom → mock (HTTP)',
  paced: `custom → mock in another process, ${concurrency} at once, chunks ${chunkDelayMs} ms apart`,
}

console.log(
  `\nTurn cost: ${turns} turns per row after ${warmup} warm-up turns, lowest CPU of ${rounds} rounds`,
)
console.log(
  `load average at the end (1, 5, 15 min): ${loadavg()
    .map((value) => value.toFixed(2))
    .join(', ')}`,
)
console.log(
  '| provider | format | sentences | CPU / turn (µs) | wall / turn (µs) | CPU / sentence (µs) | CPU / extra sentence (µs) |',
)
console.log('|---|---|---:|---:|---:|---:|---:|')
for (const row of rows) {
  const [upstream, format] = row.row.split(' ') as [Upstream, Format]
  // What each sentence after the first adds: the 40-sentence turn minus the one-sentence turn, over 39.
  const single = rows.find((other) => other.row === `${upstream} ${format} 1`)
  const extra =
    row.sentences > 1 && single
      ? ((row.cpuPerTurnUs - single.cpuPerTurnUs) / (row.sentences - 1)).toFixed(0)
      : ''
  console.log(
    `| ${labels[upstream]} | ${format} | ${row.sentences} | ${row.cpuPerTurnUs.toFixed(0)} | ${row.wallPerTurnUs.toFixed(0)} | ${row.cpuPerSentenceUs.toFixed(0)} | ${extra} |`,
  )
}
await remote?.send({ type: 'close' })
