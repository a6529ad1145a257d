/**
 * How long one store call takes on this machine, for `storage.timeout_ms`: every 20 ms for
 * `DURATION_MS` (default 60 s), one turn's worth of store calls against the local Redis and
 * PostgreSQL (`REDIS_URL`, `POSTGRES_URL`): the cluster's lock taken and released, a turn written
 * and looked up by id in a Redis history and in a PostgreSQL history (a database and key prefix of
 * this run's own, removed after). Each call is timed on its own; p50, p99 and max per store. Run it
 * alone, then while another load runs (`npm run bench -- server` in another shell) to see what that
 * load does to the stores' answers. Run: `npm run bench -- store-latency`.
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { parseConfig } from '../src/characters/load-config.js'
import { connectCluster } from '../src/cluster/connect-cluster.js'
import { createHistoryStore } from '../src/memory/history-store-factory.js'
import { createLogger } from '../src/shared/logger.js'
import { createTestDatabase, dropTestDatabase } from '../test/support/local-postgres.js'
import { createTestKeyPrefix, deleteKeysUnder, testRedisUrl } from '../test/support/local-redis.js'
import { summarizeTimes } from '../test/support/time-store-calls.js'

const durationMs = Number(process.env.DURATION_MS ?? 60_000)
const logger = createLogger({ level: 'silent' })
const keyPrefix = createTestKeyPrefix()
const database = `charpipe_latency_${randomUUID().replaceAll('-', '')}`
const postgresUrl = await createTestDatabase(database)

const config = (store: 'redis' | 'postgres') =>
  parseConfig({
    history: { store },
    storage: { redis_url: testRedisUrl, postgres_url: postgresUrl, timeout_ms: 10_000 },
    memory: { enabled: false },
    cluster: { enabled: true, key_prefix: keyPrefix },
  }).config
const cluster = await connectCluster(config('redis'), logger)
const redisHistory = await createHistoryStore(config('redis'), { logger, redisKeyPrefix: keyPrefix })
const postgresHistory = await createHistoryStore(config('postgres'), { logger })

const times = { lock: [] as number[], redisHistory: [] as number[], postgresHistory: [] as number[] }
async function timed<T>(into: number[], call: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const result = await call()
  into.push(performance.now() - started)
  return result
}

const startedAt = Date.now()
for (let round = 0; Date.now() - startedAt < durationMs; round++) {
  const session = `latency-${round % 20}`
  const signal = new AbortController().signal
  const lease = await timed(times.lock, () => cluster.coordinator.acquire(session, signal))
  await timed(times.lock, () => lease.release())
  for (const [store, into] of [
    [redisHistory, times.redisHistory],
    [postgresHistory, times.postgresHistory],
  ] as const) {
    const scope = { character: 'bench', session }
    const turn = `turn-${round}`
    await timed(into, () =>
      store.appendTurn(
        scope,
        { turn, user: { role: 'user', content: '你好', createdAt: Date.now() } },
        { deadline: Date.now() + 10_000 },
      ),
    )
    await timed(into, () => store.findTurn(scope, turn))
  }
  await new Promise((resolve) => setTimeout(resolve, 20))
}

console.log(
  `store calls over ${durationMs / 1000} s (ms), load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
)
console.table({
  'cluster lock (Redis)': summarizeTimes(times.lock),
  'history (Redis)': summarizeTimes(times.redisHistory),
  'history (PostgreSQL)': summarizeTimes(times.postgresHistory),
})
await cluster.close()
await redisHistory.close()
await postgresHistory.close()
await deleteKeysUnder(keyPrefix)
await dropTestDatabase(database)
