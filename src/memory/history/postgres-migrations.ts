/**
 * Numbered schema migrations of the PostgreSQL history tables, in the schema the store is given, and
 * the runner the long-term memory tables use too (each component keeps its own version row). All
 * pending migrations run in one transaction under an advisory lock, so several servers starting at
 * once against one database migrate it exactly once.
 */
import type { Pool, PoolClient, QueryConfig } from 'pg'
import type { Logger } from '../../shared/logger.js'
import { HistoryStoreError } from './history-store-error.js'

/** Index `n` holds migration `n + 1`; `@schema` is replaced by the quoted schema name. */
export const postgresHistoryMigrations: readonly string[] = [
  `CREATE TABLE @schema.history_sessions (
     id BIGSERIAL PRIMARY KEY,
     "character" TEXT NOT NULL,
     session TEXT NOT NULL,
     turn_count INTEGER NOT NULL DEFAULT 0,
     context_start_turn INTEGER NOT NULL DEFAULT 0,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     UNIQUE ("character", session)
   );
   CREATE TABLE @schema.history_messages (
     id BIGSERIAL PRIMARY KEY,
     session_id BIGINT NOT NULL REFERENCES @schema.history_sessions (id) ON DELETE CASCADE,
     turn_seq INTEGER NOT NULL,
     turn TEXT NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
     content TEXT NOT NULL,
     emotion TEXT,
     interrupted BOOLEAN NOT NULL DEFAULT FALSE,
     created_at BIGINT NOT NULL,
     attachments TEXT
   );
   CREATE INDEX history_messages_by_turn ON @schema.history_messages (session_id, turn_seq, id);
   CREATE INDEX history_messages_by_session ON @schema.history_messages (session_id, id);`,
  // 2: user messages of failed turns, kept for the record but not sent to the model again.
  'ALTER TABLE @schema.history_messages ADD COLUMN failed BOOLEAN NOT NULL DEFAULT FALSE;',
  // 3: the highest cluster fencing number stored per session (a turn below it is stale).
  'ALTER TABLE @schema.history_sessions ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;',
  // 4: a turn is stored once per session. Copies written before this (a retried write that had
  // landed after all) are dropped, keeping the first.
  `DELETE FROM @schema.history_messages later USING @schema.history_messages first
     WHERE later.session_id = first.session_id AND later.turn = first.turn AND later.role = first.role
       AND later.id > first.id;
   CREATE UNIQUE INDEX history_messages_once ON @schema.history_messages (session_id, turn, role);`,
  // 5: the role `event` (an idle turn's instruction).
  `ALTER TABLE @schema.history_messages DROP CONSTRAINT IF EXISTS history_messages_role_check;
   ALTER TABLE @schema.history_messages ADD CONSTRAINT history_messages_role_check
     CHECK (role IN ('user', 'assistant', 'event'));`,
  // 6: the character's inner thought before a reply (character.thoughts).
  'ALTER TABLE @schema.history_messages ADD COLUMN thought TEXT;',
]

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

export interface ApplyPostgresMigrationsOptions {
  /** The schema that holds the tables; created when missing. */
  schema: string
  /** Whose version row in `charpipe_schema_versions`: `history`, `memory`. */
  component: string
  /**
   * Index `n` holds migration `n + 1`: SQL where `@schema` is replaced by the quoted schema name, or
   * a step that runs its own queries on the migration's client (inside its transaction).
   */
  migrations: readonly PostgresMigration[]
  logger?: Logger
}

/** What a migration step may do with the migration's client: run queries, with the migration's budget. */
export type MigrationClient = Pick<PoolClient, 'query'>

export type PostgresMigration = string | ((client: MigrationClient, quotedSchema: string) => Promise<void>)

/**
 * The longest a migration's query may take. Not the pool's `query_timeout` (`storage.timeout_ms`, a
 * turn's budget for one store call): migrations run once, at start-up, may wait for another
 * server's migration (the advisory lock) and may rewrite a large table, and a loaded machine must
 * not fail the start (seen: a 500 ms budget at a load of 20 on two cores). A server that does not
 * answer still fails the start, after this long.
 */
const migrationQueryTimeoutMs = 120_000

/** The client with every query given the migration's own timeout (pg reads it per query). */
function withMigrationBudget(client: PoolClient): MigrationClient {
  const query = (text: string | QueryConfig, values?: unknown[]) =>
    client.query({
      ...(typeof text === 'string' ? { text, values } : text),
      query_timeout: migrationQueryTimeoutMs,
    } as QueryConfig)
  return { query: query as PoolClient['query'] }
}

export function applyPostgresHistoryMigrations(pool: Pool, schema: string, logger?: Logger) {
  return applyPostgresMigrations(pool, {
    schema,
    component: 'history',
    migrations: postgresHistoryMigrations,
    logger,
  })
}

/** Runs the pending migrations of one component; resolves with the versions it went from and to. */
export async function applyPostgresMigrations(pool: Pool, options: ApplyPostgresMigrationsOptions) {
  const { schema, component, migrations, logger } = options
  const quoted = quoteIdentifier(schema)
  const client = await pool.connect()
  // A checked-out client needs its own listener: the server going away mid-migration must fail the
  // migration, not end the process with an unhandled 'error' event.
  const onError = (error: Error) =>
    logger?.warn({ err: error.message }, 'postgres client error during migration')
  client.on('error', onError)
  const budgeted = withMigrationBudget(client)
  try {
    await budgeted.query('BEGIN')
    await budgeted.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`charpipe:${component}:${schema}`])
    await budgeted.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`)
    await budgeted.query(`CREATE TABLE IF NOT EXISTS ${quoted}.charpipe_schema_versions (
      component TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at BIGINT NOT NULL)`)
    const found = await client.query<{ version: number }>(
      `SELECT version FROM ${quoted}.charpipe_schema_versions WHERE component = $1`,
      [component],
    )
    const from = found.rows[0]?.version ?? 0
    const latest = migrations.length
    if (from > latest) {
      throw new HistoryStoreError(
        `${component} schema version ${from} in ${schema} is newer than this charpipe knows (${latest}); upgrade charpipe`,
      )
    }
    for (let version = from + 1; version <= latest; version++) {
      const migration = migrations[version - 1]!
      if (typeof migration === 'string') await budgeted.query(migration.replaceAll('@schema', quoted))
      else await migration(budgeted, quoted)
      logger?.info({ component, schema, version }, `applied ${component} schema migration`)
    }
    await budgeted.query(
      `INSERT INTO ${quoted}.charpipe_schema_versions (component, version, applied_at) VALUES ($1, $2, $3)
       ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, applied_at = EXCLUDED.applied_at`,
      [component, latest, Date.now()],
    )
    await budgeted.query('COMMIT')
    return { from, to: latest }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.off('error', onError)
    client.release()
  }
}
