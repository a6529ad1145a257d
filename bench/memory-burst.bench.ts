/**
 * Memory writes in a burst: `SESSIONS` (default 200) sessions' long-term memory writes at once into
 * one SQLite memory store (each scope holds a memory already, so every write also re-indexes its
 * neighbour's context; texts of about 480 characters of Chinese, each different), as when that many
 * WebSocket turns end together. Measured: the longest gap between two callbacks of a 1 ms timer
 * while they run (what an interrupt frame arriving then would wait, at least) and the time until all
 * are stored, and this process's CPU for the burst (`process.cpuUsage`, user + system: the writes'
 * own cost, less sensitive than the wall clock to a loaded machine). Three bursts after the fill.
 * Goal (issue #50): no reply blocks the loop more than 20 ms. `TURNS=1` writes each text as a
 * turn is stored (`User: …` and `Assistant: …` on two lines) and `CHARS` sets its length: from
 * about 500 characters a memory and its neighbour together outgrow one window of the segmenter.
 *
 *   node --import tsx bench/memory-burst.bench.ts
 *   SESSIONS=50 node --import tsx bench/memory-burst.bench.ts
 *   TURNS=1 CHARS=800 node --import tsx bench/memory-burst.bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteMemoryStore } from '../src/memory/long-term/create-sqlite-memory-store.js'

const sessions = Number(process.env.SESSIONS ?? 200)
const bursts = 3
const characters = Number(process.env.CHARS ?? 480)
const asTurns = process.env.TURNS === '1'
const sentences = [
  '今天的海风有点凉，我们去看灯塔吧。',
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

/** A seeded generator (a linear congruence is enough to draw sentences). */
let seed = 1
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}

/** A text of its own for every write: numbered, then drawn sentences up to about `CHARS` characters. */
function createText(number: number): string {
  let text = asTurns ? `User: 第${number}个问题：灯塔在哪里？\nAssistant: ` : `第${number}句：`
  while (text.length < characters) text += sentences[Math.floor(random() * sentences.length)]
  return text
}

/** Runs `work` with a 1 ms timer beside it; the longest gap between its callbacks (ms). */
async function measureLongestGap(work: () => Promise<unknown>): Promise<{ gapMs: number; wallMs: number }> {
  let last = performance.now()
  let longest = 0
  const timer = setInterval(() => {
    const time = performance.now()
    longest = Math.max(longest, time - last)
    last = time
  }, 1)
  const started = performance.now()
  await work()
  const ended = performance.now()
  clearInterval(timer)
  return { gapMs: Math.max(longest, ended - last), wallMs: ended - started }
}

const folder = mkdtempSync(join(tmpdir(), 'charpipe-memory-burst-'))
const store = createSqliteMemoryStore({ path: join(folder, 'memory.db') })
try {
  for (let session = 0; session < sessions; session++)
    await store.add({ scope: `s${session}`, text: createText(-session) })
  const rows: string[] = []
  for (let burst = 0; burst < bursts; burst++) {
    const cpuBefore = process.cpuUsage()
    const { gapMs, wallMs } = await measureLongestGap(() =>
      Promise.all(
        Array.from({ length: sessions }, (_, session) =>
          store.add({ scope: `s${session}`, text: createText(burst * 100_000 + session) }),
        ),
      ),
    )
    const cpu = process.cpuUsage(cpuBefore)
    const cpuMs = (cpu.user + cpu.system) / 1000
    rows.push(`| ${burst + 1} | ${gapMs.toFixed(1)} | ${wallMs.toFixed(0)} | ${cpuMs.toFixed(0)} |`)
  }
  console.log(
    `\nMemory writes in a burst: ${sessions} sessions at once, one SQLite memory store, texts of ${characters} characters${asTurns ? ' as turns' : ''}`,
  )
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((value) => value.toFixed(1))
      .join(', ')}`,
  )
  console.log('| burst | longest gap of a 1 ms timer (ms) | all stored after (ms) | CPU (ms) |')
  console.log('| ---: | ---: | ---: | ---: |')
  for (const row of rows) console.log(row)
} finally {
  await store.close()
  rmSync(folder, { recursive: true, force: true })
}
