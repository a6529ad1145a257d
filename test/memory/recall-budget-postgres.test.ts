/**
 * The recall budget against a frozen PostgreSQL memory store: another connection holds an exclusive
 * lock on the memory tables, so the store's search waits on the server as it would on a frozen one.
 * The turn still asks the model once `memory.recall_timeout_ms` has passed on the engine's manual
 * clock, its `llm_done` says `memory: "timed_out"`, and the search that later fails at
 * `storage.timeout_ms` (or answers once the lock goes) is dropped without an unhandled rejection.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import { createMemoryStore } from '../../src/memory/memory-store-factory.js'
import { onStoreFailure, type StoreFailure } from '../../src/memory/store-failures.js'
import type { MemoryStore } from '../../src/memory/types.js'
import { messageText } from '../../src/shared/messages.js'
import { createScriptedProvider, type ScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, createManualClock, doneOf } from '../../src/testing/index.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl,
} from '../support/local-postgres.js'

const postgresSkipReason = await findPostgresSkipReason()
const schemaPrefix = createTestSchemaName('recall')
let schemaCount = 0
afterAll(async () => {
  if (!postgresSkipReason) await dropSchemasUnder(schemaPrefix)
})

const memoryTables = [
  'memory_items',
  'memory_vectors',
  'memory_partitions',
  'memory_index_log',
  'knowledge_documents',
]

interface Opened {
  charpipe: Charpipe
  store: MemoryStore
  locker?: pg.Client
  folder: string
  stopListening: () => void
}
let opened: Opened | undefined
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)

afterEach(async () => {
  process.off('unhandledRejection', onUnhandled)
  unhandled.length = 0
  if (!opened) return
  const { charpipe, locker, folder, stopListening } = opened
  opened = undefined
  await locker?.query('ROLLBACK').catch(() => {})
  await locker?.end().catch(() => {})
  await charpipe.close()
  stopListening()
  rmSync(folder, { recursive: true, force: true })
})

async function openFrozenStore(timeoutMs: number) {
  const schema = `${schemaPrefix}_${schemaCount++}`
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-recall-pg-'))
  const config = makeConfig({
    memory: { enabled: true, store: 'postgres' },
    storage: { postgres_url: testPostgresUrl, sqlite_path: join(folder, 'unused.db'), timeout_ms: timeoutMs },
    character: { reply_format: 'plain' },
  })
  const store = (await createMemoryStore(config, { postgresSchema: schema }))!
  await store.add({ scope: 'room', text: 'Mika drinks jasmine tea every morning.' })
  const clock = createManualClock()
  const provider = createScriptedProvider([{ chunks: ['Tea, as always.'] }, { chunks: ['Still tea.'] }])
  const failures: StoreFailure[] = []
  const stopListening = onStoreFailure((failure) => failures.push(failure))
  const charpipe = await createCharpipe(config, {
    provider,
    clock,
    historyStore: createInMemoryHistoryStore(),
    memoryStore: store,
  })
  opened = { charpipe, store, folder, stopListening }
  /** Freezes the store: an open transaction holds every memory table exclusively. */
  const freeze = async () => {
    const locker = new pg.Client({ connectionString: testPostgresUrl })
    await locker.connect()
    opened!.locker = locker
    await locker.query('BEGIN')
    const tables = memoryTables.map((table) => `"${schema}".${table}`).join(', ')
    await locker.query(`LOCK TABLE ${tables} IN ACCESS EXCLUSIVE MODE`)
  }
  const thaw = async () => {
    await opened!.locker?.query('ROLLBACK')
  }
  /** Queries of the store waiting on the lock. */
  const waitingQueries = async () => {
    const { rows } = await opened!.locker!.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND pid <> pg_backend_pid()`,
    )
    return rows[0]!.waiting
  }
  return { charpipe, store, clock, provider, failures, freeze, thaw, waitingQueries }
}

const ask = (charpipe: Charpipe) =>
  collectEvents(charpipe.generate({ session: 'room', text: 'What does Mika drink in the morning?' }))

const promptOf = (provider: ScriptedProvider, index: number) =>
  provider.requests[index]!.messages.map((message) => messageText(message)).join('\n')

describe.skipIf(postgresSkipReason !== undefined)(
  'the recall budget with a frozen PostgreSQL memory store',
  () => {
    it('asks the model once the budget passes, without memories, and drops the late answer', async () => {
      process.on('unhandledRejection', onUnhandled)
      const { charpipe, store, clock, provider, freeze, thaw, waitingQueries } = await openFrozenStore(2500)
      // Unfrozen, the memory is recalled.
      expect(doneOf(await ask(charpipe))).not.toHaveProperty('memory')
      expect(promptOf(provider, 0)).toContain('jasmine')
      // That turn's memory is written in the background: it lands before the freeze, or the freeze's
      // table locks and the write's row locks can wait on each other (PostgreSQL then ends the
      // freeze as a deadlock, as a loaded machine once showed).
      await vi.waitFor(async () => expect(await store.list({})).toHaveLength(2), { timeout: 10_000 })
      await freeze()
      const events = ask(charpipe)
      await vi.waitFor(async () => expect(await waitingQueries()).toBeGreaterThan(0))
      await clock.advance(149)
      expect(provider.requests).toHaveLength(1)
      await clock.advance(1)
      const done = doneOf(await events)
      expect(done.memory).toBe('timed_out')
      expect(done.text).toBe('Still tea.')
      expect(promptOf(provider, 1)).not.toContain('jasmine')
      // The lock goes: the late search answers, and nobody is waiting for it.
      await thaw()
      await vi.waitFor(async () => expect(await waitingQueries()).toBe(0))
      expect(unhandled).toEqual([])
    })

    it('a search that fails at storage.timeout_ms after the budget is dropped without an unhandled rejection', async () => {
      process.on('unhandledRejection', onUnhandled)
      const { charpipe, clock, failures, freeze, waitingQueries } = await openFrozenStore(1000)
      await freeze()
      const events = ask(charpipe)
      await vi.waitFor(async () => expect(await waitingQueries()).toBeGreaterThan(0))
      await clock.advance(150)
      expect(doneOf(await events).memory).toBe('timed_out')
      // The store's own deadline, on the wall clock: the frozen search fails a second later.
      await vi.waitFor(
        () =>
          expect(failures.some((failure) => failure.operation === 'search' && failure.timedOut)).toBe(true),
        { timeout: 10_000 },
      )
      await new Promise<void>((resolve) => setImmediate(resolve))
      expect(unhandled).toEqual([])
    })
  },
)
