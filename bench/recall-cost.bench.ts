/**
 * Recall cost per turn: the CPU one memory search takes (`process.cpuUsage` around it), in two
 * conversations of one scope as a chat leaves them.
 *   - repeating: every turn says nearly the same ("第N次：灯塔在哪里？" and one fixed answer), as a
 *     greeting said every session or a bot's fixed reply does; every memory matches the query and
 *     all are near-duplicates of each other, so the search ranks the most candidates and its
 *     selection reads the most rows before it finds `k` different memories;
 *   - varied: lines drawn from a vocabulary of 3,000 words, a fifth of them Chinese, where a query
 *     matches a few dozen memories.
 * `k` is 5 (`memory.top_k`'s default). Memories are written through the store first; the timed
 * searches follow 200 untimed ones, in batches timed as a whole.
 *
 *   npm run bench -- recall-cost
 *   MEMORIES=2000 npm run bench -- recall-cost
 *
 * For instruction counts (`valgrind --tool=callgrind`), `ONLY=<shape> SEARCHES=<n>` runs one shape's
 * warm-up and then `n` searches, untimed: the difference of two runs (say 600 and 100) over their
 * difference in searches is the instructions of one search, without the set-up.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteMemoryStore } from '../src/memory/long-term/create-sqlite-memory-store.js'
import type { MemoryStore } from '../src/memory/types.js'
import { createSeededRandom, makeChineseWords, makeSyllableWords } from './memory/synthetic-words.js'

const memoryCount = Number(process.env.MEMORIES ?? 640)
const onlyShape = process.env.ONLY
const searchCount = process.env.SEARCHES === undefined ? undefined : Number(process.env.SEARCHES)
const batchCount = 7
const batchSize = 500
const warmUpCount = 200
const k = 5

const random = createSeededRandom(7)
const words = makeSyllableWords(2_400)
const chineseWords = makeChineseWords(600)
const pick = <T>(list: T[]): T => list[Math.floor(random() * random() * list.length)] as T

const shapes = {
  repeating: {
    line: (index: number) =>
      `用户: 第${index}次：灯塔在哪里？\n小助手: 你好！今天的海风有点凉，我们去看灯塔吧。`,
    query: (index: number) => `第${memoryCount + index}次：灯塔在哪里？`,
  },
  varied: {
    line: () =>
      random() < 0.2
        ? Array.from({ length: 6 + Math.floor(random() * 8) }, () => pick(chineseWords)).join('')
        : Array.from({ length: 8 + Math.floor(random() * 16) }, () => pick(words)).join(' '),
    query: () =>
      random() < 0.2
        ? Array.from({ length: 2 }, () => pick(chineseWords)).join('')
        : Array.from({ length: 3 + Math.floor(random() * 4) }, () => pick(words)).join(' '),
  },
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number
}

/**
 * CPU per search as a batch's total over its count: the process's CPU clock moves in scheduler
 * ticks, too coarse for one search alone. The median of `batchCount` batches.
 */
async function measure(store: MemoryStore, scope: string, query: (index: number) => string) {
  for (let index = 0; index < warmUpCount; index++) await store.search(query(index), { scope, k })
  const perSearch: number[] = []
  let hits = 0
  let next = warmUpCount
  for (let batch = 0; batch < batchCount; batch++) {
    const before = process.cpuUsage()
    for (let index = 0; index < batchSize; index++)
      hits += (await store.search(query(next++), { scope, k })).length
    const used = process.cpuUsage(before)
    perSearch.push((used.user + used.system) / 1000 / batchSize)
  }
  perSearch.sort((left, right) => left - right)
  return {
    'CPU ms a search, median batch': percentile(perSearch, 0.5).toFixed(3),
    'min batch': (perSearch[0] as number).toFixed(3),
    'max batch': (perSearch[perSearch.length - 1] as number).toFixed(3),
    'hits/search': (hits / (batchCount * batchSize)).toFixed(1),
  }
}

async function searchUntimed(
  store: MemoryStore,
  scope: string,
  query: (index: number) => string,
  count: number,
) {
  let hits = 0
  for (let index = 0; index < warmUpCount + count; index++)
    hits += (await store.search(query(index), { scope, k })).length
  return { searches: String(count), 'hits/search': (hits / (warmUpCount + count)).toFixed(1) }
}

const folder = mkdtempSync(join(tmpdir(), 'recall-cost-bench-'))
try {
  const results: Record<string, Record<string, string>> = {}
  for (const [name, shape] of Object.entries(shapes)) {
    if (onlyShape !== undefined && name !== onlyShape) continue
    const store = createSqliteMemoryStore({ path: join(folder, `${name}.db`) })
    for (let index = 0; index < memoryCount; index++)
      await store.add({ scope: name, text: shape.line(index), speaker: '用户' })
    results[`${name}, ${memoryCount} memories`] =
      searchCount === undefined
        ? await measure(store, name, shape.query)
        : await searchUntimed(store, name, shape.query, searchCount)
    await store.close()
  }
  console.log(
    `Recall cost: CPU of one search (k = ${k}), ${batchCount} batches of ${batchSize} after ${warmUpCount}`,
  )
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((value) => value.toFixed(1))
      .join(', ')}`,
  )
  console.table(results)
} finally {
  rmSync(folder, { recursive: true, force: true })
}
