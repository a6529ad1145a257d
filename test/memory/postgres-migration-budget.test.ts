/**
 * A PostgreSQL store's migrations at start-up are not held to `storage.timeout_ms` (a turn's budget
 * for one store call): a migration that waits for another server's migration (the advisory lock it
 * holds) longer than that still completes once the lock is let go, where it used to fail the start
 * with "Query read timeout" (seen on a loaded machine with a 500 ms budget).
 */
import pg from 'pg'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createPostgresHistoryStore } from '../../src/memory/history/postgres-history-store.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl as url,
} from '../support/local-postgres.js'

const schema = createTestSchemaName('migration_budget')
const skipReason = await findPostgresSkipReason()
if (skipReason) console.warn(`postgres migration budget test skipped: ${skipReason}`)

afterAll(async () => {
  if (!skipReason) await dropSchemasUnder(schema)
})

/** How long (ms) the backend of the store's migration has waited for the advisory lock; 0: not waiting. */
async function migrationWaitedMs(admin: pg.Client): Promise<number> {
  const found = await admin.query<{ ms: number }>(
    `SELECT EXTRACT(EPOCH FROM now() - a.query_start) * 1000 AS ms
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND NOT l.granted AND a.pid <> pg_backend_pid()`,
  )
  return Number(found.rows[0]?.ms ?? 0)
}

describe.skipIf(skipReason !== undefined)('PostgreSQL migrations at start-up', () => {
  it('wait for another migration longer than storage.timeout_ms and still complete', async () => {
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    const holder = new pg.Client({ connectionString: url })
    await holder.connect()
    try {
      // Another server's migration of the same schema holds the lock.
      await holder.query('BEGIN')
      await holder.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`charpipe:history:${schema}`])
      const opening = createPostgresHistoryStore({ url, schema, timeoutMs: 100 })
      const failed = opening.then(
        () => undefined,
        (error: unknown) => error,
      )
      // Waited past the store's 100 ms per-call budget (a condition polled, nothing timed).
      await vi.waitFor(async () => expect(await migrationWaitedMs(admin)).toBeGreaterThan(300), {
        timeout: 15_000,
        interval: 50,
      })
      await holder.query('COMMIT')
      expect(await failed).toBeUndefined()
      const store = await opening
      await store.appendTurn(
        { character: 'nova', session: 's' },
        { turn: 't1', user: { role: 'user', content: 'hi', createdAt: 1 } },
      )
      expect(await store.findTurn({ character: 'nova', session: 's' }, 't1')).toHaveLength(1)
      await store.close()
    } finally {
      await holder.end()
      await admin.end()
    }
  })
})
