/**
 * History stores: appendTurn throughput and loadRecent(10) latency with 100 / 10,000 / 100,000
 * messages already in the session. SQLite always; Redis and PostgreSQL when their local servers
 * answer (REDIS_URL, POSTGRES_URL).
 * Run: node --import tsx bench/history.bench.ts
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { createPostgresHistoryStore } from '../src/memory/history/postgres-history-store.js'
import { createRedisHistoryStore } from '../src/memory/history/redis-history-store.js'
import { createSqliteHistoryStore } from '../src/memory/history/sqlite-history-store.js'
import type { CompletedTurn, ConversationScope, HistoryStore } from '../src/memory/types.js'
import { fillPostgresSession } from './history/fill-postgres-session.js'
import { type LatencyResult, measureLatency } from './history/measure-latency.js'

const sizes = [100, 10_000, 100_000]
const appendIterations = 2000
const loadIterations = 2000
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const postgresUrl = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

const buildTurn = (index: number): CompletedTurn => ({
  turn: `turn-${index}`,
  user: { role: 'user', content: `问题 ${index}：${'今天天气不错。'.repeat(6)}`, createdAt: Date.now() },
  assistant: {
    role: 'assistant',
    content: `回答 ${index}：${'是啊，我们出去走走吧。'.repeat(4)}`,
    emotion: '开心',
    createdAt: Date.now(),
  },
})

interface Row {
  store: string
  messages: number
  append: LatencyResult
  load: LatencyResult
}

interface BenchTarget {
  name: string
  store: HistoryStore
  /** Adds `turns` turns to the session as fast as the back end allows. */
  fill(scope: ConversationScope, turns: number): Promise<void>
  cleanUp(): Promise<void>
}

async function benchTarget(target: BenchTarget): Promise<Row[]> {
  const rows: Row[] = []
  for (const size of sizes) {
    const scope = { character: `bench-${randomBytes(4).toString('hex')}`, session: `size-${size}` }
    await target.fill(scope, size / 2)
    // Reads first, on exactly `size` messages; then appends on top of them.
    const load = await measureLatency(loadIterations, () => target.store.loadRecent(scope, 10))
    const append = await measureLatency(appendIterations, (index) =>
      target.store.appendTurn(scope, buildTurn(size + index)),
    )
    rows.push({ store: target.name, messages: size, append, load })
    console.error(`${target.name} ${size}: done`)
  }
  await target.store.close()
  await target.cleanUp()
  return rows
}

async function fillByAppending(
  store: HistoryStore,
  scope: ConversationScope,
  turns: number,
  concurrency: number,
) {
  for (let start = 0; start < turns; start += concurrency) {
    const batch = Math.min(concurrency, turns - start)
    await Promise.all(
      Array.from({ length: batch }, (_, offset) => store.appendTurn(scope, buildTurn(start + offset))),
    )
  }
}

function sqliteTarget(): BenchTarget {
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-bench-history-'))
  const store = createSqliteHistoryStore({ path: join(folder, 'history.db') })
  return {
    name: 'sqlite (WAL, synchronous=NORMAL)',
    store,
    fill: (scope, turns) => fillByAppending(store, scope, turns, 1),
    cleanUp: async () => rmSync(folder, { recursive: true, force: true }),
  }
}

async function redisTarget(): Promise<BenchTarget | undefined> {
  const probe = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null })
  probe.on('error', () => {})
  try {
    await probe.connect()
  } catch {
    console.error(`redis: not reachable at ${redisUrl}, skipped`)
    return undefined
  }
  const keyPrefix = `charpipe-bench-${randomBytes(4).toString('hex')}:`
  const store = await createRedisHistoryStore({ url: redisUrl, keyPrefix })
  return {
    name: 'redis',
    store,
    fill: (scope, turns) => fillByAppending(store, scope, turns, 200),
    async cleanUp() {
      let cursor = '0'
      do {
        const [next, keys] = await probe.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000)
        if (keys.length) await probe.del(...keys)
        cursor = next
      } while (cursor !== '0')
      await probe.quit()
    },
  }
}

async function postgresTarget(): Promise<BenchTarget | undefined> {
  const pool = new pg.Pool({ connectionString: postgresUrl, connectionTimeoutMillis: 1000, max: 5 })
  try {
    await pool.query('SELECT 1')
  } catch {
    console.error(`postgres: not reachable at ${postgresUrl}, skipped`)
    await pool.end()
    return undefined
  }
  const schema = `charpipe_bench_${randomBytes(4).toString('hex')}`
  const store = await createPostgresHistoryStore({ pool, schema })
  return {
    name: 'postgres',
    store,
    async fill(scope, turns) {
      await fillPostgresSession(pool, schema, scope, turns)
      await pool.query(`ANALYZE "${schema}".history_messages`)
    },
    async cleanUp() {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`)
      await pool.end()
    },
  }
}

const format = (value: number) => value.toFixed(3)
const rows: Row[] = []
rows.push(...(await benchTarget(sqliteTarget())))
const redis = await redisTarget()
if (redis) rows.push(...(await benchTarget(redis)))
const postgres = await postgresTarget()
if (postgres) rows.push(...(await benchTarget(postgres)))

console.log(
  `| store | messages in session | appendTurn turns/s | appendTurn median ms | appendTurn p99 ms | loadRecent(10) median ms | loadRecent(10) p99 ms |`,
)
console.log('|---|--:|--:|--:|--:|--:|--:|')
for (const row of rows) {
  console.log(
    `| ${row.store} | ${row.messages.toLocaleString('en-US')} | ${Math.round(row.append.perSecond).toLocaleString('en-US')} | ${format(row.append.medianMs)} | ${format(row.append.p99Ms)} | ${format(row.load.medianMs)} | ${format(row.load.p99Ms)} |`,
  )
}
