/**
 * What a long run keeps in a cluster: three real `charpipe serve` processes (the built package) on
 * the local Redis (`cluster.enabled`, a key prefix of the run's own) and the local PostgreSQL
 * (history and long-term memory, a database of the run's own), over the mock model in this process.
 * WebSocket clients run steady turns spread over the three, reconnecting to the next server now and
 * then (sessions come back on other servers) and interrupting some turns from another server. Every
 * `SAMPLE_S` each server's live heap is read through its inspector (two forced collections, then
 * `Runtime.getHeapUsage`), with its RSS; the table ends with the growth per 1,000 turns (least
 * squares) and the figures after `IDLE_S` without turns.
 *
 * Run: `npm run bench -- cluster-soak` (`DURATION_S` 1800, `IDLE_S` 60, `SAMPLE_S` 60, `CLIENTS` 6,
 * `SESSIONS` per client 300, `RECONNECT` 40, `INTERRUPT_EVERY` 10, `WARMUP` turns 150,
 * `REPLY_CHARS` 600; `INDEX_MAX_MB`: `memory.index_max_mb`; `SNAPSHOT=1 SNAPSHOT_DIR=…`: a heap snapshot of each server after the warm-up and
 * at the end). Needs `REDIS_URL` and `POSTGRES_URL` (defaults: the local ones).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startMockModelServer } from '../src/testing/index.js'
import { createTestDatabase, createTestSchemaName, dropTestDatabase } from '../test/support/local-postgres.js'
import { createTestKeyPrefix, deleteKeysUnder, testRedisUrl } from '../test/support/local-redis.js'
import { ensureBuilt } from './built-package.js'
import { fitSlope } from './cluster-soak/fit-slope.js'
import { runSoakClient } from './cluster-soak/run-soak-client.js'
import { type ClusterMember, startClusterMember } from './cluster-soak/start-cluster-member.js'

const durationS = Number(process.env.DURATION_S ?? 1800)
const idleS = Number(process.env.IDLE_S ?? 60)
const sampleS = Number(process.env.SAMPLE_S ?? 60)
const clients = Number(process.env.CLIENTS ?? 6)
const sessions = Number(process.env.SESSIONS ?? 300)
const reconnectEvery = Number(process.env.RECONNECT ?? 40)
const interruptEvery = Number(process.env.INTERRUPT_EVERY ?? 10)
const warmupTurns = Number(process.env.WARMUP ?? 150)
const replyChars = Number(process.env.REPLY_CHARS ?? 600)
// The keyword index's budget (`memory.index_max_mb`); a small one shows what happens past it.
const indexMaxMb = process.env.INDEX_MAX_MB ? Number(process.env.INDEX_MAX_MB) : undefined
const snapshotDir = process.env.SNAPSHOT === '1' ? (process.env.SNAPSHOT_DIR ?? tmpdir()) : undefined

const sentence = '今天的风很大，我们慢慢地走回家吧。'
const reply = sentence.repeat(Math.ceil(replyChars / sentence.length)).slice(0, replyChars)

ensureBuilt()
const folder = await mkdtemp(join(tmpdir(), 'charpipe-cluster-soak-'))
const database = createTestSchemaName('soak')
const keyPrefix = createTestKeyPrefix()
const model = await startMockModelServer({ respond: () => ({ text: reply, chunkSize: 12 }) })
const postgresUrl = await createTestDatabase(database)
const configPath = join(folder, 'config.yaml')
// JSON is YAML.
await writeFile(
  configPath,
  JSON.stringify({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'chat-model', max_retries: 0 },
    history: { store: 'postgres' },
    memory: { enabled: true, store: 'postgres', ...(indexMaxMb ? { index_max_mb: indexMaxMb } : {}) },
    storage: { postgres_url: postgresUrl, redis_url: testRedisUrl },
    cluster: { enabled: true, key_prefix: keyPrefix },
    // Steady load from few connections: the per-connection turn limits are not what is measured.
    server: { limits: { turns_per_minute: 100000, frames_per_second: 100000 } },
  }),
)

const members: ClusterMember[] = []
try {
  // One at a time: the first creates the tables, the others find them.
  for (const name of ['a', 'b', 'c']) {
    await mkdir(join(folder, name))
    members.push(await startClusterMember({ name, configPath, cwd: join(folder, name) }))
  }
  await runSoak(members)
} finally {
  for (const member of members) await member.stop()
  await model.close()
  await dropTestDatabase(database)
  await deleteKeysUnder(keyPrefix)
  await rm(folder, { recursive: true, force: true })
}

async function runSoak(servers: ClusterMember[]) {
  let turns = 0
  const errors = new Map<string, number>()
  const onTurn = (code: string | undefined) => {
    turns++
    if (code) errors.set(code, (errors.get(code) ?? 0) + 1)
  }
  const runClients = (keepGoing: () => boolean) =>
    Promise.all(
      Array.from({ length: clients }, (_, client) =>
        runSoakClient({
          client,
          serverUrls: servers.map((server) => server.url),
          sessions,
          reconnectEvery,
          interruptEvery,
          keepGoing,
          onTurn,
        }),
      ),
    )
  await runClients(() => turns < warmupTurns)
  await snapshotAll(servers, 'start')

  const rows: Record<string, number | string>[] = []
  const startedAt = Date.now()
  const sample = async (label: string) => {
    // The mock keeps every request for tests to read: this process's memory, not the servers'.
    model.requests.length = 0
    const row: Record<string, number | string> = {
      at: label,
      minute: Math.round((Date.now() - startedAt) / 6000) / 10,
      turns,
    }
    for (const server of servers) row[`heap ${server.name} (MB)`] = await server.inspector.readLiveHeapMb()
    for (const server of servers) row[`rss ${server.name} (MB)`] = server.readRssMb()
    rows.push(row)
    console.error(JSON.stringify(row))
  }
  await sample('start')
  const stopAt = startedAt + durationS * 1000
  const running = runClients(() => Date.now() < stopAt)
  while (Date.now() + sampleS * 1000 < stopAt) {
    await sleep(sampleS * 1000)
    await sample('turns')
  }
  await running
  await sample('end')
  const loadRows = [...rows]
  await sleep(idleS * 1000)
  await sample(`idle ${idleS} s`)
  await snapshotAll(servers, 'end')

  console.log(
    `cluster soak: 3 servers, ${clients} clients, ${sessions} sessions each, ${turns} turns (${warmupTurns} of warm-up), ${durationS} s`,
  )
  console.table(rows)
  const growth: Record<string, string> = {}
  for (const server of servers) {
    const key = `heap ${server.name} (MB)`
    const slope = fitSlope(loadRows.map((row) => [row.turns as number, row[key] as number]))
    growth[server.name] = `${(slope * 1000).toFixed(3)} MB per 1,000 turns`
  }
  console.log('live heap growth (least squares over the samples under load):', growth)
  console.log('turn errors:', Object.fromEntries(errors))
}

async function snapshotAll(servers: ClusterMember[], label: string) {
  if (!snapshotDir) return
  for (const server of servers) {
    const path = join(snapshotDir, `cluster-soak-${server.name}-${label}.heapsnapshot`)
    await server.inspector.writeHeapSnapshot(path)
    console.error(`heap snapshot: ${path}`)
  }
}
