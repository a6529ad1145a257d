/**
 * A commit that passed its deadline check but became visible later (a busy disk's fsync, a
 * synchronous standby) is told "stored", never "not stored" and then found stored: the read-back
 * waits for the write's transaction to end, on PostgreSQL's clock and locks, whatever the delays.
 * Here a deferred trigger holds the COMMIT well past the write's deadline.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confirmTurnWrite } from '../../src/engine/confirm-turn-write.js'
import { createPostgresHistoryStore } from '../../src/memory/history/postgres-history-store.js'
import type { HistoryStore } from '../../src/memory/types.js'
import { createLogger } from '../../src/shared/logger.js'
import './cpu-load-under-ci.js'

const url = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `charpipe_slow_${randomBytes(6).toString('hex')}`
const scope = { character: '小助手', session: 'slow' }
const logger = createLogger({ level: 'silent' })
// How long the COMMIT is held after its deadline check passed.
const commitHoldMs = 900
const writeWindowMs = 300

let admin: pg.Client
let store: HistoryStore

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url })
  await admin.connect()
  store = await createPostgresHistoryStore({ url, schema, timeoutMs: 5000, logger })
  // A deferred constraint trigger runs inside COMMIT, after the statement that checked the deadline.
  await admin.query(`CREATE FUNCTION "${schema}".hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(${commitHoldMs / 1000}); RETURN NULL; END $$`)
  await admin.query(`CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON "${schema}".history_messages
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.content = 'slow') EXECUTE FUNCTION "${schema}".hold_commit()`)
})

afterAll(async () => {
  await store?.close()
  await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin?.end()
})

describe('a slow commit', () => {
  it('is confirmed stored by the read-back, not reported "not stored" before it lands', async () => {
    const deadline = Date.now() + writeWindowMs
    const turn = { turn: 'slow-1', user: { role: 'user' as const, content: 'slow', createdAt: Date.now() } }
    const failure = await store.appendTurn(scope, turn, { deadline }).then(
      () => undefined,
      (error: unknown) => error,
    )
    // The client gave up at its deadline while the server was still committing.
    expect(failure).toBeInstanceOf(Error)
    const result = await confirmTurnWrite({ store, scope, turn: 'slow-1', deadline, failure })
    expect(result).toEqual({ status: 'stored' })
    expect((await store.findTurn(scope, 'slow-1')).map((message) => message.content)).toEqual(['slow'])
  })

  it('a write that never reached its commit is reported not stored, and stays so', async () => {
    const deadline = Date.now() - 1
    const turn = { turn: 'late-1', user: { role: 'user' as const, content: 'late', createdAt: Date.now() } }
    const failure = await store.appendTurn(scope, turn, { deadline }).then(
      () => undefined,
      (error: unknown) => error,
    )
    const result = await confirmTurnWrite({ store, scope, turn: 'late-1', deadline, failure })
    expect(result.status).toBe('not_stored')
    expect(await store.findTurn(scope, 'late-1')).toEqual([])
  })
})
