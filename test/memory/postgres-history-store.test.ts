import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createCommitGate } from '../../src/memory/commit-gate.js'
import { createPostgresHistoryStore } from '../../src/memory/history/postgres-history-store.js'
import { postgresHistoryMigrations } from '../../src/memory/history/postgres-migrations.js'
import { isWriteNotApplied } from '../../src/memory/write-not-applied.js'
import { buildTurn, describeHistoryStoreContract } from '../../src/testing/history-store-contract.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl as url,
} from '../support/local-postgres.js'

// Schemas of this run only (the contract's and the tests' own, under one prefix), all dropped
// afterwards, so the suite never touches other tables.
const schema = createTestSchemaName('history')
const skipReason = await findPostgresSkipReason()
if (skipReason) console.warn(`postgres history store tests skipped: ${skipReason}`)

afterAll(async () => {
  if (!skipReason) await dropSchemasUnder(schema)
})

describeHistoryStoreContract({
  name: 'postgres',
  createStore: () => createPostgresHistoryStore({ url, schema }),
  reopenStore: () => createPostgresHistoryStore({ url, schema }),
  validatesInput: true,
  checksDeadline: true,
  skipReason,
})

describe.skipIf(skipReason !== undefined)('createPostgresHistoryStore', () => {
  it('gives each client an error listener from its connect: an error as the client is handed out does not end the process', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    const store = await createPostgresHistoryStore({ pool, schema: `${schema}_guard` })
    let outcome: unknown = 'not emitted'
    // Runs after the pool took its idle listener off and before the caller has the client in hand.
    pool.once('acquire', (client) =>
      queueMicrotask(() => {
        try {
          client.emit('error', new Error('terminating connection due to administrator command'))
          outcome = 'handled'
        } catch (error) {
          outcome = error
        }
      }),
    )
    const scope = { character: 'guard', session: 's' }
    await store.appendTurn(scope, buildTurn(1)).catch(() => {})
    expect(outcome).toBe('handled')
    await store.close()
    await pool.end()
  })

  it('migrates once even when several servers start together, and uses the window index', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 6 })
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => createPostgresHistoryStore({ pool, schema: `${schema}_race` })),
    )
    const scope = { character: '小助手', session: 'user-1' }
    await stores[0]!.appendTurn(scope, buildTurn(1))
    expect((await stores[3]!.loadRecent(scope, 1)).map((message) => message.content)).toEqual([
      '问题 1',
      '回答 1',
    ])
    const versions = await pool.query(`SELECT version FROM "${schema}_race".charpipe_schema_versions`)
    expect(versions.rows).toEqual([{ version: postgresHistoryMigrations.length }])
    // With sequential scans priced out, the planner must have an index that serves the window.
    const client = await pool.connect()
    await client.query('SET enable_seqscan = off')
    const plan = await client.query(
      `EXPLAIN SELECT id FROM "${schema}_race".history_messages WHERE session_id = 1 AND turn_seq > 5 ORDER BY turn_seq, id`,
    )
    client.release()
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n')
    expect(text).toMatch(/Index (Only )?Scan using history_messages_by_turn/)
    expect(text).not.toMatch(/Sort/)
    await Promise.all(stores.map((store) => store.close()))
    await pool.query(`DROP SCHEMA "${schema}_race" CASCADE`)
    await pool.end()
  })

  it('refuses a fenced turn below the fence it stored for the session (a turn that outlived its lock)', async () => {
    const store = await createPostgresHistoryStore({ url, schema })
    const scope = { character: '小助手', session: 'fenced' }
    await store.appendTurn(scope, { ...buildTurn(1), fence: 5 })
    await expect(store.appendTurn(scope, { ...buildTurn(2), fence: 4 })).rejects.toMatchObject({
      code: 'store_unavailable',
    })
    await store.appendTurn(scope, { ...buildTurn(3), fence: 6 })
    // Turns outside a cluster carry no fence and are always stored.
    await store.appendTurn(scope, buildTurn(4))
    const users = (await store.listMessages(scope)).filter((message) => message.role === 'user')
    expect(users.map((message) => message.content)).toEqual(['问题 1', '问题 3', '问题 4'])
    expect(await store.countTurns(scope)).toBe(3)
    await store.close()
  })

  it('a write given up on before its COMMIT rolls back, and the next write of the session is stored', async () => {
    const store = await createPostgresHistoryStore({ url, schema })
    const scope = { character: '小助手', session: 'given-up' }
    const commit = createCommitGate()
    const write = store.appendTurn(scope, buildTurn(1), { commitGate: commit.gate })
    // Its statements are still on their way: its COMMIT cannot have been sent.
    expect(commit.close()).toBe('not_sent')
    const failure = await write.catch((error: unknown) => error)
    expect(isWriteNotApplied(failure)).toBe(true)
    expect(await store.findTurn(scope, 'turn-1')).toEqual([])
    expect(await store.countTurns(scope)).toBe(0)
    await store.appendTurn(scope, buildTurn(1))
    expect(await store.countTurns(scope)).toBe(1)
    await store.close()
  })
})

describe('createPostgresHistoryStore without a server', () => {
  it('names the host, not the password, when it cannot connect', async () => {
    const attempt = createPostgresHistoryStore({ url: 'postgres://someone:hunter2secret@127.0.0.1:1/test' })
    await expect(attempt).rejects.toThrow(
      /cannot open PostgreSQL history at postgres:\/\/127\.0\.0\.1:1\/test/,
    )
    await expect(attempt).rejects.not.toThrow(/hunter2secret/)
  })

  it('asks for a url or a pool', async () => {
    await expect(createPostgresHistoryStore({})).rejects.toThrow(/give url \(storage\.postgres_url\) or pool/)
  })
})
