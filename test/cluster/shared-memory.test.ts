/**
 * Two real `charpipe serve` processes with `memory.store: postgres` on one PostgreSQL (a database of
 * this run's own) in a cluster on one Redis: a memory written through one server is found, changed
 * and deleted through the other, a turn on the other server is given it, and `/healthz` on both
 * covers the memory store. Under CI the services must be there: the test never skips then.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, type RecordedRequest, startMockModelServer } from '../../src/testing/index.js'
import { openTestSocket, type TestSocket } from '../server/websocket-client.js'
import {
  createTestDatabase,
  createTestSchemaName,
  dropTestDatabase,
  findPostgresSkipReason,
} from '../support/local-postgres.js'
import {
  createTestKeyPrefix,
  deleteKeysUnder,
  findRedisSkipReason,
  testRedisUrl,
} from '../support/local-redis.js'
import { type ServeMember, startServeMember } from '../support/serve-members.js'
import { stopServe } from '../support/spawn-serve.js'

const skipReason = (await findRedisSkipReason()) ?? (await findPostgresSkipReason())
if (skipReason) console.warn(`shared memory cluster test skipped: ${skipReason}`)

const database = createTestSchemaName('cluster_memory')
const keyPrefix = createTestKeyPrefix()
const servers: ServeMember[] = []
const sockets: TestSocket[] = []
const requests: RecordedRequest[] = []
let folder: string
let model: MockModelServer

beforeAll(async () => {
  if (skipReason) return
  folder = await mkdtemp(join(tmpdir(), 'charpipe-cluster-memory-'))
  model = await startMockModelServer({
    respond: (request) => {
      requests.push(request)
      return { text: JSON.stringify({ emotion: '开心', text: '记住了。' }) }
    },
  })
  // A database of this run's own: the store keeps its tables in its `public` schema.
  const postgresUrl = await createTestDatabase(database)
  const configPath = join(folder, 'config.yaml')
  await writeFile(
    configPath,
    [
      'llm:',
      '  provider: custom',
      `  base_url: ${model.url}/v1`,
      '  max_retries: 0',
      'history:',
      '  store: memory',
      'memory:',
      '  store: postgres',
      'storage:',
      `  postgres_url: ${postgresUrl}`,
      `  redis_url: ${testRedisUrl}`,
      'cluster:',
      '  enabled: true',
      `  key_prefix: "${keyPrefix}"`,
    ].join('\n'),
  )
  for (const name of ['a', 'b']) await mkdir(join(folder, name))
  // One at a time: the first creates the tables, the other finds them.
  for (const name of ['a', 'b']) servers.push(await startServeMember(configPath, join(folder, name)))
}, 300_000)

afterAll(async () => {
  for (const socket of sockets) await socket.close().catch(() => {})
  for (const server of servers) await stopServe(server)
  if (skipReason) return
  await model?.close()
  await dropTestDatabase(database)
  await deleteKeysUnder(keyPrefix)
  await rm(folder, { recursive: true, force: true })
}, 60_000)

describe.skipIf(skipReason !== undefined)(
  'long-term memory shared by two servers',
  { timeout: 120_000 },
  () => {
    const scope = 'remembering'
    const search = async (server: ServeMember, q: string) => {
      const answer = await fetch(
        `${server.url}/api/memory/search?${new URLSearchParams({ q, scope, k: '3' })}`,
      )
      expect(answer.status).toBe(200)
      return ((await answer.json()) as { results: { id: string; text: string }[] }).results
    }
    const send = (server: ServeMember, path: string, method: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })

    it('says on /healthz that the memory store answers, on both', async () => {
      for (const server of servers)
        expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true })
    })

    it('finds a memory written through one server through the other, as it is changed and deleted', async () => {
      const [a, b] = servers as [ServeMember, ServeMember]
      const created = await send(a, '/api/memory', 'POST', {
        scope,
        text: 'The spare key is under the blue flowerpot.',
      })
      expect(created.status).toBe(201)
      const { id } = (await created.json()) as { id: string }
      expect((await search(b, 'where is the spare key')).map((hit) => hit.id)).toEqual([id])
      expect(
        (await send(b, `/api/memory/${id}`, 'PATCH', { text: 'The spare key is now in the mailbox.' }))
          .status,
      ).toBe(200)
      expect((await search(a, 'spare key')).map((hit) => hit.text)).toEqual([
        'The spare key is now in the mailbox.',
      ])

      // A turn on the other server than the one that stored it gives the model the memory.
      const socket = await openTestSocket(`${b.url}/ws`)
      sockets.push(socket)
      socket.send({ type: 'user_input', session: scope, text: 'where did I put the spare key' })
      await socket.waitForTurn(scope, 0)
      expect(JSON.stringify(requests.at(-1)?.body)).toContain('The spare key is now in the mailbox.')

      expect((await fetch(`${a.url}/api/memory/${id}`, { method: 'DELETE' })).status).toBe(200)
      expect((await search(b, 'spare key mailbox')).map((hit) => hit.id)).not.toContain(id)
      const history = (await (await fetch(`${b.url}/api/memory/${id}/history`)).json()) as {
        changes: { event: string }[]
      }
      expect(history.changes.map((change) => change.event)).toEqual(['add', 'update', 'delete'])
    })
  },
)
