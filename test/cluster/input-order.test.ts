/**
 * Two real `charpipe serve` processes (`on_new_input: interrupt`) on one PostgreSQL (history, a
 * database of this run's own) and one Redis (a key prefix of this run's own): an input superseded by
 * a newer one on the other server before it took the session's lock is stored, before the newer one,
 * whatever server took each. The session's lock is held meanwhile by a server that died mid-turn
 * (its lease, written here): the older input waits for it on one server, the newer arrives on the
 * other and stops it.
 * Under CI the services must be there: the test never skips then.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { openTestSocket, type TestSocket } from '../server/websocket-client.js'
import { createTestDatabase, dropTestDatabase, findPostgresSkipReason } from '../support/local-postgres.js'
import {
  createTestKeyPrefix,
  deleteKeysUnder,
  findRedisSkipReason,
  testRedisUrl,
} from '../support/local-redis.js'
import { readHistory, readLockWaits, type ServeMember, startServeMember } from '../support/serve-members.js'
import { stopServe } from '../support/spawn-serve.js'

const skipReason = (await findRedisSkipReason()) ?? (await findPostgresSkipReason())
if (skipReason) console.warn(`cluster input order test skipped: ${skipReason}`)

async function historyOf(server: ServeMember, session: string) {
  return (await readHistory(server, session)).map(({ role, content }) => `${role}:${content}`)
}

/** Polls (a hang guard of 10 s): what a server does in the background has no event to wait on. */
async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${what}: not within 10 s`)
}

describe.skipIf(skipReason !== undefined)(
  'inputs of one session on two servers',
  { timeout: 120_000 },
  () => {
    const database = `charpipe_order_${randomUUID().replaceAll('-', '')}`
    const keyPrefix = createTestKeyPrefix()
    const servers: ServeMember[] = []
    const sockets: TestSocket[] = []
    let folder: string
    let model: MockModelServer
    let redis: Redis

    beforeAll(async () => {
      folder = await mkdtemp(join(tmpdir(), 'charpipe-order-'))
      model = await startMockModelServer({
        script: { replies: [], default: { text: '{"emotion":"开心","text":"好的。"}', chunkSize: 64 } },
      })
      const postgresUrl = await createTestDatabase(database)
      const configPath = join(folder, 'config.yaml')
      await writeFile(
        configPath,
        [
          'llm:',
          '  provider: custom',
          `  base_url: ${model.url}/v1`,
          '  max_retries: 0',
          'conversation:',
          '  on_new_input: interrupt',
          'history:',
          '  store: postgres',
          'memory:',
          '  enabled: false',
          'storage:',
          `  postgres_url: ${postgresUrl}`,
          `  redis_url: ${testRedisUrl}`,
          'cluster:',
          '  enabled: true',
          `  key_prefix: "${keyPrefix}"`,
          '  lease_ms: 30000',
          '  lock_wait_ms: 20000',
          '  shared_secret: input-order-shared-secret-0123456',
        ].join('\n'),
      )
      for (const name of ['a', 'b']) {
        await mkdir(join(folder, name))
        servers.push(await startServeMember(configPath, join(folder, name)))
      }
      redis = new Redis(testRedisUrl)
    }, 300_000)

    afterAll(async () => {
      for (const socket of sockets) await socket.close().catch(() => {})
      for (const server of servers) await stopServe(server)
      if (skipReason) return
      await redis?.quit()
      await model?.close()
      await dropTestDatabase(database)
      await deleteKeysUnder(keyPrefix)
      await rm(folder, { recursive: true, force: true })
    }, 60_000)

    it('an input superseded on one server before it took the lock is stored before the newer input taken by the other', async () => {
      const session = 'order'
      const [a, b] = await Promise.all(servers.map((server) => openTestSocket(`${server.url}/ws`)))
      sockets.push(a!, b!)
      // A server that died mid-turn still holds the session's lease.
      const lease = `${keyPrefix}lease:${session}`
      await redis.set(lease, 'a-server-that-died', 'PX', 60_000)

      const older = b!.waitForTurn(session)
      b!.send({ type: 'user_input', session, text: '先说的', id: 'older' })
      // Server B numbered the older input and waits for the lock.
      await waitUntil(
        async () => (await readLockWaits(servers[1]!)) >= 1,
        'the older input waiting for the lock',
      )

      const newer = a!.waitForTurn(session)
      a!.send({ type: 'user_input', session, text: '后说的', id: 'newer' })
      // The newer input stops the older where it waits: it ends at once, unanswered.
      const olderFrames = await older
      expect(olderFrames.find((frame) => frame.type === 'llm_error')).toMatchObject({
        code: 'interrupted_by_new_input',
      })
      expect(olderFrames.find((frame) => frame.type === 'llm_done')).toMatchObject({
        text: '',
        interrupted: true,
      })
      // Server A waits too: for the lease, and for the older input to take its turn.
      await waitUntil(
        async () => (await readLockWaits(servers[0]!)) >= 1,
        'the newer input waiting for the lock',
      )

      // The dead server's lease runs out.
      await redis.del(lease)
      const newerFrames = await newer
      expect(newerFrames.filter((frame) => frame.type === 'llm_error')).toEqual([])
      expect(newerFrames.find((frame) => frame.type === 'llm_done')).toMatchObject({
        text: '好的。',
        interrupted: false,
      })

      // The older input's line was stored before the newer turn, and nobody was told otherwise.
      expect(await historyOf(servers[0]!, session)).toEqual([
        'user:先说的',
        'user:后说的',
        'assistant:好的。',
      ])
      expect(b!.frames.filter((frame) => frame.type === 'turn_not_stored')).toEqual([])
    })
  },
)
