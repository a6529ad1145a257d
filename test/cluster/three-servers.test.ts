/**
 * Three real `charpipe serve` processes on one PostgreSQL (history, a database of this run's own)
 * and one Redis (a key prefix of this run's own), with the mock model server: a session moves
 * across them, concurrent inputs of one session are serialized, an interrupt sent to another server
 * stops the turn where it runs, a server killed mid-turn holds the session only for the lease, an
 * admin config change reaches every server; the history lost no turn and holds no duplicate. It runs
 * once per long-term memory store (`memory.store`): SQLite (a file per server) and PostgreSQL (shared,
 * in this run's database). The killed process is the server itself (started with the heap flag, so
 * it does not relaunch itself): killing a launcher would end the server gracefully instead.
 * Under CI the services must be there: the test never skips then.
 */

import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, type RecordedRequest, startMockModelServer } from '../../src/testing/index.js'
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

const leaseMs = 2000

const skipReason = (await findRedisSkipReason()) ?? (await findPostgresSkipReason())
if (skipReason) console.warn(`cluster integration test skipped: ${skipReason}`)

interface ServeProcess extends ServeMember {
  name: string
}

function lastUserText(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { role: string; content: unknown }[] }).messages ?? []
  const last = messages.filter((message) => message.role === 'user').at(-1)
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '')
}

async function connect(server: ServeProcess, sockets: TestSocket[]): Promise<TestSocket> {
  const socket = await openTestSocket(`${server.url}/ws`)
  sockets.push(socket)
  return socket
}

async function say(socket: TestSocket, session: string, text: string) {
  const from = socket.frames.length
  socket.send({ type: 'user_input', session, text })
  return socket.waitForTurn(session, from)
}

const historyOf = readHistory

async function waitFor<T>(read: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  let value = await read()
  for (let attempt = 0; attempt < 100 && !accept(value); attempt++) {
    await new Promise((done) => setTimeout(done, 100))
    value = await read()
  }
  if (!accept(value)) throw new Error(`${what}: not within 10 s (last: ${JSON.stringify(value)})`)
  return value
}

const doneOf = (frames: Record<string, unknown>[]) => frames.find((frame) => frame.type === 'llm_done')!

function describeCluster(memoryStore: 'sqlite' | 'postgres') {
  const database = `charpipe_cluster_${randomUUID().replaceAll('-', '')}`
  const keyPrefix = createTestKeyPrefix()
  const servers: ServeProcess[] = []
  const sockets: TestSocket[] = []
  // One socket per server, in the order of `servers`.
  let clients: TestSocket[] = []
  let folder: string
  let model: MockModelServer
  let configPath: string
  // Model calls as the mock saw them: when each started and ended (in the order of these events, not
  // by a clock), and for which input.
  const calls: { input: string; start: number; end: number; request: RecordedRequest }[] = []
  let moments = 0

  // `slow …` streams for about three seconds; anything else answers at once. Each reply names its input.
  function reply(request: RecordedRequest) {
    const input = lastUserText(request)
    const call = { input, start: ++moments, end: Number.POSITIVE_INFINITY, request }
    calls.push(call)
    void request.closed.then(() => (call.end = ++moments))
    const said = input.replace(/[^\p{L}\p{N} ]/gu, '')
    const text = input.startsWith('slow') ? `${said}第一句。${'慢慢说。'.repeat(60)}` : `${said}答好了。`
    return {
      text: JSON.stringify({ emotion: '开心', text }),
      chunkSize: input.startsWith('slow') ? 4 : 64,
      delayMs: input.startsWith('slow') ? 20 : 0,
    }
  }

  async function spawnServe(name: string): Promise<ServeProcess> {
    return { ...(await startServeMember(configPath, join(folder, name))), name }
  }

  describe.skipIf(skipReason !== undefined)(
    `three servers as one, memory.store: ${memoryStore}`,
    { timeout: 120_000 },
    () => {
      const session = 'moving'
      // Every turn that ended without being cut, by the text its user said.
      const expectedTurns: string[] = []

      // Each store's three servers live only while its tests run.
      beforeAll(async () => {
        if (skipReason) return
        folder = await mkdtemp(join(tmpdir(), 'charpipe-cluster-'))
        model = await startMockModelServer({ respond: reply })
        const postgresUrl = await createTestDatabase(database)
        configPath = join(folder, 'config.yaml')
        // History and (with memory.store: postgres) memories in this run's own database; SQLite
        // memories in a file under each server's own folder.
        await writeFile(
          configPath,
          [
            'llm:',
            '  provider: custom',
            `  base_url: ${model.url}/v1`,
            '  max_retries: 0',
            'conversation:',
            '  on_new_input: queue',
            'history:',
            '  store: postgres',
            'memory:',
            '  enabled: true',
            `  store: ${memoryStore}`,
            'storage:',
            `  postgres_url: ${postgresUrl}`,
            `  redis_url: ${testRedisUrl}`,
            '  sqlite_path: ./charpipe.db',
            'cluster:',
            '  enabled: true',
            `  key_prefix: "${keyPrefix}"`,
            `  lease_ms: ${leaseMs}`,
            '  shared_secret: three-servers-shared-secret-0123',
          ].join('\n'),
        )
        for (const name of ['a', 'b', 'c']) await mkdir(join(folder, name))
        // One at a time: the first creates the tables, the others find them.
        servers.push(await spawnServe('a'))
        servers.push(...(await Promise.all([spawnServe('b'), spawnServe('c')])))
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

      it('says on /healthz that the cluster Redis answers', async () => {
        for (const server of servers) {
          expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ ok: true })
        }
      })

      it('moves a session across the servers: each sees the turns the others stored', async () => {
        clients = await Promise.all(servers.map((server) => connect(server, sockets)))
        const [a, b, c] = clients
        for (const [socket, text] of [
          [a!, 'one'],
          [b!, 'two'],
          [c!, 'three'],
        ] as const) {
          const frames = await say(socket, session, text)
          expect(doneOf(frames)).toMatchObject({ text: `${text}答好了。`, interrupted: false })
          expectedTurns.push(text)
        }
        const third = calls.find((call) => call.input === 'three')!
        const seen = JSON.stringify(third.request.body)
        expect(seen).toContain('one答好了。')
        expect(seen).toContain('two答好了。')
      })

      it('serializes concurrent inputs of one session sent to two servers', async () => {
        const [a, b] = clients
        const [first, second] = await Promise.all([
          say(a!, session, 'slow left'),
          say(b!, session, 'slow right'),
        ])
        expect(doneOf(first)).toMatchObject({ interrupted: false })
        expect(doneOf(second)).toMatchObject({ interrupted: false })
        const left = calls.find((call) => call.input === 'slow left')!
        const right = calls.find((call) => call.input === 'slow right')!
        const [earlier, later] = left.start < right.start ? [left, right] : [right, left]
        // No overlap: the later model call began after the earlier one ended, and saw its reply stored.
        expect(later.start).toBeGreaterThanOrEqual(earlier.end)
        const earlierInput = earlier === left ? 'slow left' : 'slow right'
        expect(JSON.stringify(later.request.body)).toContain(
          `${earlierInput.replace(/[^\p{L}\p{N} ]/gu, '')}第一句。`,
        )
        expectedTurns.push(earlierInput, earlier === left ? 'slow right' : 'slow left')
        const waits = await Promise.all(servers.map(readLockWaits))
        expect(waits.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(1)
      })

      // (`heard` from a connection other than the turn's own counts only with the admin token, a rule of
      // the WebSocket route; the engine-level cluster test covers `heard` across servers.)
      it('stops a turn running on one server by an interrupt sent to another, stored as far as it was spoken', async () => {
        const [a, , c] = clients
        const from = a!.frames.length
        a!.send({ type: 'user_input', session, text: 'slow cut' })
        await a!.waitFor((frame) => frame.type === 'llm_sentence' && frame.session === session, from)
        c!.send({ type: 'interrupt', session })
        const frames = await a!.waitForTurn(session, from)
        expect(doneOf(frames)).toMatchObject({ interrupted: true })
        const stored = await waitFor(
          () => historyOf(servers[1]!, session),
          (messages) =>
            messages.at(-1)?.turn === doneOf(frames).turn && messages.at(-1)?.role === 'assistant',
          'the cut reply stored',
        )
        expect(stored.at(-1)).toMatchObject({ role: 'assistant', interrupted: true })
        // Cut where it stopped: the first sentence, far from the whole reply.
        expect(stored.at(-1)!.content.startsWith('slow cut第一句。')).toBe(true)
        expect(stored.at(-1)!.content.length).toBeLessThan(100)
        expectedTurns.push('slow cut')
        const metrics = await (await fetch(`${servers[0]!.url}/metrics`)).text()
        expect(metrics).toMatch(/^charpipe_cluster_remote_interrupts_total [1-9]/m)
      })

      it('continues the session on another server within the lease after one is killed mid-turn', async () => {
        const [, b, c] = clients
        const from = b!.frames.length
        b!.send({ type: 'user_input', session, text: 'slow doomed' })
        // Mid-turn for certain: the first sentence is out and the slow reply streams for seconds more.
        await b!.waitFor((frame) => frame.type === 'llm_sentence' && frame.session === session, from)
        const waitsBefore = await readLockWaits(servers[2]!)
        servers[1]!.child.kill('SIGKILL')
        // The server process itself died by the signal, with no chance to store or release anything.
        expect(await servers[1]!.exited).toBe('SIGKILL')
        const frames = await say(c!, session, 'after')
        const seen = JSON.stringify(frames.filter((frame) => frame.type !== 'llm_chunk'))
        expect(doneOf(frames), seen).toMatchObject({ text: 'after答好了。', interrupted: false })
        // The dead server's lease was still there: the next turn waited for it to run out (and no
        // longer than the test's timeout allows), then went on.
        expect(await readLockWaits(servers[2]!)).toBeGreaterThan(waitsBefore)
        expectedTurns.push('after')
      })

      it('applies an admin config change made on one server on the others within a second or so', async () => {
        const [a, , c] = [servers[0]!, servers[1]!, servers[2]!]
        const answer = await fetch(`${a.url}/api/config`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ llm: { temperature: 0.37 } }),
        })
        expect(answer.status).toBe(200)
        await waitFor(
          async () =>
            ((await (await fetch(`${c.url}/api/config`)).json()) as { llm: { temperature: number } }).llm,
          (llm) => llm.temperature === 0.37,
          'the change on the other server',
        )
      })

      it('kept every turn once, in order: nothing lost, nothing twice', async () => {
        const messages = await historyOf(servers[2]!, session)
        const users = messages.filter((message) => message.role === 'user').map((message) => message.content)
        // The killed server's turn died before it was stored; every other turn is there once.
        expect(users).toEqual(expectedTurns)
        const turns = messages.map((message) => `${message.role}:${message.turn}`)
        expect(new Set(turns).size).toBe(turns.length)
        expect(messages.map((message) => message.role)).toEqual(
          expectedTurns.flatMap(() => ['user', 'assistant']),
        )
      })
    },
  )
}

describeCluster('sqlite')
describeCluster('postgres')
