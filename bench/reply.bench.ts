/**
 * Reply parser benchmark: cost per chunk and throughput on a long mixed Chinese/English reply (json
 * and plain, chunks of 1–8 characters), and growth from 1 KB to 1 MB of output, beside the naive
 * baseline (regex over the whole accumulated buffer on every chunk) in the same run.
 *
 *   node --import tsx bench/reply.bench.ts [--max-kb N]
 *
 * The silence table compares the parser with `silence` on and off on the same reply (the check
 * only runs until the reply shows it is speaking), and times a reply that stays silent for a long
 * run of whitespace (the longest the check can be kept busy).
 *
 * The thought table compares the parser with `thoughts` on and off: on a reply with no thought (the
 * marker check only reads its first characters), on the same reply after a short thought (the
 * JSON `thought` field, or `<thought>…</thought>` in plain), and on a reply that is one long
 * thought (every chunk read inside it, past the thought's bound).
 *
 * `--max-kb` (default 1024) caps the reply sizes, for a quick check that the bench still runs
 * (e.g. `--max-kb 4`); the figures are taken at the default.
 */
import { loadavg } from 'node:os'
import { createReplyParser } from '../src/reply/index.js'
import { createNaiveReplyParser } from './reply/naive-baseline.js'
import { buildReplyText, splitIntoChunks } from './reply/reply-corpus.js'

type Format = 'json' | 'plain'

const maxKilobytes = (() => {
  const index = process.argv.indexOf('--max-kb')
  const value = index === -1 ? 1024 : Number(process.argv[index + 1])
  if (!Number.isFinite(value) || value < 1) throw new Error('--max-kb needs a number of kilobytes >= 1')
  return value
})()

interface Input {
  format: Format
  bytes: number
  chunks: string[]
}

function buildInput(format: Format, bytes: number): Input {
  const text = buildReplyText(bytes)
  const output = format === 'json' ? JSON.stringify({ emotion: '开心', text }) : text
  return { format, bytes: Buffer.byteLength(output), chunks: splitIntoChunks(output) }
}

function runCharpipe(input: Input): number {
  const parser = createReplyParser({ replyFormat: input.format, log: () => {} })
  let events = 0
  for (const chunk of input.chunks) events += parser.push(chunk).length
  return events + parser.end().length
}

function runCharpipeWithSilence(input: Input): number {
  const parser = createReplyParser({ replyFormat: input.format, log: () => {}, silence: true })
  let events = 0
  for (const chunk of input.chunks) events += parser.push(chunk).length
  return events + parser.end().length
}

function runCharpipeWithThoughts(input: Input): number {
  const parser = createReplyParser({ replyFormat: input.format, log: () => {}, thoughts: true })
  let events = 0
  for (const chunk of input.chunks) events += parser.push(chunk).length
  return events + parser.end().length
}

const benchThought = '他今天好像不太开心，我先轻一点问问发生了什么，别太吵。'

/** The reply of `buildInput` after a thought, in the form the format reads. */
function buildThoughtInput(format: Format, bytes: number, thought: string): Input {
  const text = buildReplyText(bytes)
  const output =
    format === 'json'
      ? JSON.stringify({ thought, emotion: '开心', text })
      : `<thought>${thought}</thought>\n${text}`
  return { format, bytes: Buffer.byteLength(output), chunks: splitIntoChunks(output) }
}

function runNaive(input: Input): number {
  const parser = createNaiveReplyParser(input.format)
  let sentences = 0
  for (const chunk of input.chunks) sentences += parser.push(chunk)
  return sentences + parser.end()
}

const cache = new Map<string, number>()

/**
 * Best time of one run in ms: repeats until `budgetMs` is spent (at least 3 runs, after a warm-up).
 * The best run, not the median, because on a shared machine other work only ever adds time.
 * A run that alone takes longer than a second is measured once: it has warmed itself up.
 */
function measure(run: (input: Input) => number, input: Input, budgetMs = 400): number {
  const key = `${run.name}:${input.format}:${input.bytes}`
  const known = cache.get(key)
  if (known !== undefined) return known
  const first = performance.now()
  run(input)
  const firstTime = performance.now() - first
  if (firstTime > 1000) {
    cache.set(key, firstTime)
    return firstTime
  }
  const times: number[] = []
  const started = performance.now()
  while (times.length < 3 || (performance.now() - started < budgetMs && times.length < 200)) {
    const start = performance.now()
    run(input)
    times.push(performance.now() - start)
  }
  const best = Math.min(...times)
  cache.set(key, best)
  return best
}

/** Timings are only comparable on an idle machine; the table says how busy it was. */
const loadAverage = () => loadavg()[0]!.toFixed(1)
const formatNumber = (value: number, digits = 1) => value.toFixed(digits)
const sizeLabel = (bytes: number) =>
  bytes >= 1 << 20 ? `${formatNumber(bytes / (1 << 20), 2)} MB` : `${formatNumber(bytes / 1024)} KB`

function printTable(title: string, rows: Record<string, string>[]): void {
  console.log(`\n${title}`)
  const columns = Object.keys(rows[0] ?? {})
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => row[column]!.length)))
  const line = (cells: string[]) =>
    `| ${cells.map((cell, index) => cell.padEnd(widths[index]!)).join(' | ')} |`
  console.log(line(columns))
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`)
  for (const row of rows) console.log(line(columns.map((column) => row[column]!)))
}

function throughputRows(): Record<string, string>[] {
  const rows: Record<string, string>[] = []
  for (const format of ['json', 'plain'] as const) {
    const input = buildInput(format, Math.min(64, maxKilobytes) * 1024)
    const ours = measure(runCharpipe, input)
    const naive = measure(runNaive, input)
    const megabytes = input.bytes / (1 << 20)
    rows.push({
      format,
      output: sizeLabel(input.bytes),
      chunks: String(input.chunks.length),
      'charpipe ns/chunk': formatNumber((ours * 1e6) / input.chunks.length, 0),
      'charpipe MB/s': formatNumber(megabytes / (ours / 1000)),
      'naive ns/chunk': formatNumber((naive * 1e6) / input.chunks.length, 0),
      'naive MB/s': formatNumber(megabytes / (naive / 1000), 2),
      'naive / charpipe': `${formatNumber(naive / ours, 0)}×`,
    })
  }
  return rows
}

function silenceRows(): Record<string, string>[] {
  const rows: Record<string, string>[] = []
  const size = Math.min(64, maxKilobytes) * 1024
  for (const format of ['json', 'plain'] as const) {
    const input = buildInput(format, size)
    const off = measure(runCharpipe, input)
    const on = measure(runCharpipeWithSilence, input)
    rows.push({
      reply: `${format}, speaking`,
      chunks: String(input.chunks.length),
      'off ns/chunk': formatNumber((off * 1e6) / input.chunks.length, 0),
      'on ns/chunk': formatNumber((on * 1e6) / input.chunks.length, 0),
      'on − off ns/chunk': formatNumber(((on - off) * 1e6) / input.chunks.length, 0),
    })
  }
  // Silence and then whitespace only: every chunk is checked, and held.
  const quiet = `[silence]${' \n'.repeat(size / 2)}`
  const input: Input = { format: 'plain', bytes: quiet.length, chunks: splitIntoChunks(quiet) }
  const on = measure(runCharpipeWithSilence, input)
  rows.push({
    reply: `plain, [silence] + ${sizeLabel(size)} of whitespace`,
    chunks: String(input.chunks.length),
    'off ns/chunk': '—',
    'on ns/chunk': formatNumber((on * 1e6) / input.chunks.length, 0),
    'on − off ns/chunk': '—',
  })
  return rows
}

function thoughtRows(): Record<string, string>[] {
  const rows: Record<string, string>[] = []
  const size = Math.min(64, maxKilobytes) * 1024
  const perChunk = (milliseconds: number, input: Input) =>
    formatNumber((milliseconds * 1e6) / input.chunks.length, 0)
  for (const format of ['json', 'plain'] as const) {
    const plain = buildInput(format, size)
    const off = measure(runCharpipe, plain)
    const onWithout = measure(runCharpipeWithThoughts, plain)
    const thinking = buildThoughtInput(format, size, benchThought)
    const onWith = measure(runCharpipeWithThoughts, thinking)
    for (const [reply, input, on] of [
      [`${format}, no thought`, plain, onWithout],
      [`${format}, thought + reply`, thinking, onWith],
    ] as const) {
      rows.push({
        reply,
        chunks: String(input.chunks.length),
        'off ns/chunk': perChunk(off, plain),
        'on ns/chunk': perChunk(on, input),
        'on − off ns/chunk': formatNumber(Number(perChunk(on, input)) - Number(perChunk(off, plain)), 0),
      })
    }
  }
  // One open thought the size of the reply: every chunk is read inside it.
  const long = `<thought>${buildReplyText(size)}`
  const input: Input = { format: 'plain', bytes: Buffer.byteLength(long), chunks: splitIntoChunks(long) }
  rows.push({
    reply: `plain, one thought of ${sizeLabel(size)}`,
    chunks: String(input.chunks.length),
    'off ns/chunk': '—',
    'on ns/chunk': perChunk(measure(runCharpipeWithThoughts, input), input),
    'on − off ns/chunk': '—',
  })
  return rows
}

/** The baseline is quadratic: past this size one run takes minutes, so it is left out. */
const NAIVE_LIMIT = 64 * 1024

function growthRows(format: Format): Record<string, string>[] {
  const rows: Record<string, string>[] = []
  for (const kilobytes of [1, 4, 16, 64, 256, 1024].filter((size) => size <= maxKilobytes)) {
    const input = buildInput(format, kilobytes * 1024)
    const ours = measure(runCharpipe, input)
    const naive = input.bytes <= NAIVE_LIMIT * 1.1 ? measure(runNaive, input) : undefined
    const perKilobyte = (milliseconds: number) =>
      formatNumber((milliseconds * 1000) / (input.bytes / 1024), 2)
    rows.push({
      format,
      output: sizeLabel(input.bytes),
      chunks: String(input.chunks.length),
      'charpipe ms': formatNumber(ours, 2),
      'charpipe µs/KB': perKilobyte(ours),
      'naive ms': naive === undefined ? '—' : formatNumber(naive, 2),
      'naive µs/KB': naive === undefined ? '— (quadratic)' : perKilobyte(naive),
    })
  }
  return rows
}

console.log(
  `Node ${process.version}; chunks of 1–8 characters; best of repeated runs; load ${loadAverage()}.`,
)
printTable(`Throughput on a ${Math.min(64, maxKilobytes)} KB mixed Chinese/English reply`, throughputRows())
printTable('Growth, json (time per KB must stay flat)', growthRows('json'))
printTable('Growth, plain', growthRows('plain'))
printTable(`Silence check (parser option \`silence\`), ${Math.min(64, maxKilobytes)} KB`, silenceRows())
printTable(`Inner thought (parser option \`thoughts\`), ${Math.min(64, maxKilobytes)} KB`, thoughtRows())
