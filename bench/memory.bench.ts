/**
 * Long-term memory at scale: insert throughput and search latency with 100,000 stored memories in
 * one scope (the worst case: every search ranks against all of them). Synthetic conversation-like
 * lines drawn from a Zipf-distributed vocabulary, a fifth of them Chinese; no embeddings. The store
 * is reopened before searching, so the first search builds the scope's keyword index from SQLite
 * as after a restart; its time and the memory it takes are reported on their own.
 *
 *   node --import tsx bench/memory.bench.ts [--store sqlite|postgres]
 *
 * `--store postgres` runs the same against PostgreSQL (`POSTGRES_URL`, else the local server), in a
 * schema of its own that is dropped afterwards; the search path is the same searcher and keyword
 * index, plus the store's round trips (the index-log check before each search, the rows read). All
 * but the last 2,000 memories are written in bulk, as the store would write them
 * (`bulkLoadPostgresMemories`); the insert row times those 2,000, added one by one.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPostgresMemoryStore } from '../src/memory/long-term/create-postgres-memory-store.js'
import { createSqliteMemoryStore } from '../src/memory/long-term/create-sqlite-memory-store.js'
import type { MemoryStore } from '../src/memory/types.js'
import { createTestSchemaName, dropSchemasUnder, testPostgresUrl } from '../test/support/local-postgres.js'
import { bulkLoadPostgresMemories } from './memory/bulk-load-postgres-memories.js'
import { createSeededRandom, makeChineseWords, makeSyllableWords } from './memory/synthetic-words.js'

const memoryCount = Number(process.env.MEMORY_BENCH_COUNT ?? 100_000)
const queryCount = 2_000
/** PostgreSQL: memories added one by one through the store (the rest are written in bulk). */
const postgresAddedCount = 2_000
const storeFlag = process.argv.indexOf('--store')
const storeName = storeFlag > 0 ? process.argv[storeFlag + 1] : 'sqlite'
if (storeName !== 'sqlite' && storeName !== 'postgres') {
  console.error(`--store must be sqlite or postgres, got ${JSON.stringify(storeName)}`)
  process.exit(2)
}

const random = createSeededRandom(42)
const english = makeSyllableWords(8_000)
const chinese = makeChineseWords(2_000)
const fillers = ['I', 'we', 'the', 'a', 'my', 'and', 'was', 'with', 'to', 'really']

function pickZipf(words: string[]): string {
  // Rank ~ 1/u gives a heavy head like real word frequencies.
  const rank = Math.min(words.length - 1, Math.floor(1 / (random() + 1e-4)) - 1 + Math.floor(random() * 3))
  return words[Math.max(0, rank + Math.floor(random() * random() * words.length))] as string
}

function makeLine(): string {
  if (random() < 0.2)
    return Array.from({ length: 6 + Math.floor(random() * 10) }, () => pickZipf(chinese)).join('')
  const length = 6 + Math.floor(random() * 20)
  return Array.from({ length }, () =>
    random() < 0.35 ? fillers[Math.floor(random() * fillers.length)] : pickZipf(english),
  ).join(' ')
}

function makeQuery(): string {
  if (random() < 0.2) return Array.from({ length: 3 }, () => pickZipf(chinese)).join('')
  return Array.from({ length: 3 + Math.floor(random() * 5) }, () => pickZipf(english)).join(' ')
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] as number
}

const folder = mkdtempSync(join(tmpdir(), 'memory-bench-'))
const schema = createTestSchemaName('memory_bench')
/** The bench's store; a second call opens the same data again, as after a restart. */
function openStore(): Promise<MemoryStore> | MemoryStore {
  return storeName === 'postgres'
    ? createPostgresMemoryStore({ url: testPostgresUrl, schema, timeoutMs: 60_000 })
    : createSqliteMemoryStore({ path: join(folder, 'charpipe.db') })
}
try {
  const store = await openStore()
  const lines = Array.from({ length: memoryCount }, makeLine)
  const speakerOf = (index: number) => (index % 2 ? 'Ann' : 'Bot')
  // PostgreSQL: all but the last `postgresAddedCount` written in bulk, the rest through the store.
  const bulkCount = storeName === 'postgres' ? Math.max(0, memoryCount - postgresAddedCount) : 0
  if (bulkCount > 0) {
    await bulkLoadPostgresMemories({
      url: testPostgresUrl,
      schema,
      scope: 'user-1',
      memories: lines.slice(0, bulkCount).map((text, index) => ({ text, speaker: speakerOf(index) })),
      time: Date.now(),
    })
  }
  // A search first, so every add below also keeps the loaded keyword index in step, as in a chat.
  await store.search('warm up', { scope: 'user-1', k: 1 })
  const insertStart = performance.now()
  for (let index = bulkCount; index < lines.length; index++) {
    await store.add({ scope: 'user-1', text: lines[index] as string, speaker: speakerOf(index) })
  }
  const insertSeconds = (performance.now() - insertStart) / 1000
  const addedCount = memoryCount - bulkCount
  // A few other scopes so the scope filter has something to filter.
  for (let index = 0; index < 1_000; index++)
    await store.add({ scope: `user-${2 + (index % 10)}`, text: makeLine() })

  await store.close()

  const results: Record<string, Record<string, string | number>> = {}
  global.gc?.()
  const before = process.memoryUsage()
  const reopened = await openStore()
  const buildStart = performance.now()
  await reopened.search('first search builds the index', { scope: 'user-1', k: 3 })
  const buildMs = performance.now() - buildStart
  global.gc?.()
  const after = process.memoryUsage()
  const megabytes = (bytes: number) => (bytes / 1_048_576).toFixed(1)
  const build = {
    'first search ms (index build)': buildMs.toFixed(0),
    'heap + buffers MiB': megabytes(
      after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers,
    ),
    'RSS MiB': megabytes(after.rss - before.rss),
    measured: global.gc ? 'after gc' : 'run with --expose-gc for exact heap figures',
  }
  for (const k of [3, 10]) {
    const queries = Array.from({ length: queryCount }, makeQuery)
    for (const query of queries.slice(0, 50)) await reopened.search(query, { scope: 'user-1', k })
    const timings: number[] = []
    let hits = 0
    for (const query of queries) {
      const begin = performance.now()
      hits += (await reopened.search(query, { scope: 'user-1', k, tokenBudget: 1_000 })).length
      timings.push(performance.now() - begin)
    }
    timings.sort((left, right) => left - right)
    results[`search k=${k}`] = {
      queries: queryCount,
      'median ms': percentile(timings, 0.5).toFixed(2),
      'p99 ms': percentile(timings, 0.99).toFixed(2),
      'max ms': (timings[timings.length - 1] as number).toFixed(2),
      'hits/query': (hits / queryCount).toFixed(1),
    }
  }
  await reopened.close()
  console.log(`memory bench (${storeName}): ${memoryCount} memories in one scope (+1,000 in others)`)
  console.table({
    [bulkCount ? `insert (after ${bulkCount} in bulk)` : 'insert']: {
      memories: addedCount,
      seconds: insertSeconds.toFixed(1),
      'per second': Math.round(addedCount / insertSeconds),
    },
  })
  console.table({ 'keyword index': build })
  console.table(results)
} finally {
  rmSync(folder, { recursive: true, force: true })
  if (storeName === 'postgres') await dropSchemasUnder(schema)
}
