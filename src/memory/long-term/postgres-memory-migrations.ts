/**
 * The long-term memory tables in PostgreSQL: the same items, vectors, change history and knowledge
 * documents as the SQLite store, with each row's index terms kept beside it (what SQLite keeps in
 * its FTS table), plus what lets every server's in-process keyword index follow the writes of the
 * others: a version per partition (a scope's memories, or the knowledge chunks), bumped by every
 * write, and a log of the index changes each version made (`createPostgresKeywordIndex`).
 *
 * Times are `double precision`: a memory's time is milliseconds since the epoch as the caller gave
 * it, and SQLite keeps a fractional one as it is.
 */
import type { Pool } from 'pg'
import type { Logger } from '../../shared/logger.js'
import {
  applyPostgresMigrations,
  type MigrationClient,
  type PostgresMigration,
} from '../history/postgres-migrations.js'
import { planScopeMigration, type ScopeMigrationOptions } from './plan-scope-migration.js'

/**
 * Migration 2: scopes encoded so that no two conversations share one (see memoryScopeOf). One
 * UPDATE reads every row's old scope, so a scope that moves to where another moves away is not
 * moved twice. The keyword-index partitions of the scopes involved start again (every server
 * reloads a partition it has no log for); the migration runs before any server serves.
 */
async function encodeMemoryScopes(client: MigrationClient, tables: string, options: ScopeMigrationOptions) {
  const found = await client.query<{ scope: string }>(
    `SELECT DISTINCT scope FROM ${tables}.memory_items WHERE kind = 'memory'`,
  )
  const moves = planScopeMigration(
    found.rows.map((row) => row.scope),
    options,
  )
  if (moves.length === 0) return
  const from = moves.map(([scope]) => scope)
  const to = moves.map(([, scope]) => scope)
  await client.query(
    `UPDATE ${tables}.memory_items AS item SET scope = move.to_scope
     FROM unnest($1::text[], $2::text[]) AS move (from_scope, to_scope)
     WHERE item.kind = 'memory' AND item.scope = move.from_scope`,
    [from, to],
  )
  const touched = [...from, ...to]
  await client.query(`DELETE FROM ${tables}.memory_index_log WHERE kind = 'memory' AND scope = ANY($1)`, [
    touched,
  ])
  await client.query(`DELETE FROM ${tables}.memory_partitions WHERE kind = 'memory' AND scope = ANY($1)`, [
    touched,
  ])
}

/** The memory migrations; `options` reach the steps that move data. */
export function listPostgresMemoryMigrations(options: ScopeMigrationOptions = {}): PostgresMigration[] {
  return [...postgresMemoryMigrations, (client, tables) => encodeMemoryScopes(client, tables, options)]
}

/** The SQL migrations; index `n` holds migration `n + 1`; `@schema` is replaced by the quoted schema name. */
const postgresMemoryMigrations: readonly string[] = [
  `CREATE TABLE @schema.memory_items (
     seq BIGSERIAL PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL CHECK (kind IN ('memory', 'knowledge')),
     scope TEXT NOT NULL,
     text TEXT NOT NULL,
     speaker TEXT,
     time DOUBLE PRECISION NOT NULL,
     metadata TEXT,
     source_turn TEXT,
     document_id TEXT,
     context TEXT NOT NULL DEFAULT '',
     token_count INTEGER NOT NULL,
     speaker_terms TEXT NOT NULL DEFAULT '',
     body_terms TEXT NOT NULL DEFAULT '',
     context_terms TEXT NOT NULL DEFAULT '',
     created_at DOUBLE PRECISION NOT NULL,
     updated_at DOUBLE PRECISION NOT NULL
   );
   CREATE INDEX memory_items_by_scope ON @schema.memory_items (kind, scope, seq);
   CREATE INDEX memory_items_by_document ON @schema.memory_items (document_id) WHERE document_id IS NOT NULL;
   CREATE TABLE @schema.memory_vectors (
     seq BIGINT PRIMARY KEY REFERENCES @schema.memory_items (seq) ON DELETE CASCADE,
     model TEXT NOT NULL,
     vector BYTEA NOT NULL
   );
   CREATE TABLE @schema.memory_changes (
     id BIGSERIAL PRIMARY KEY,
     memory_id TEXT NOT NULL,
     event TEXT NOT NULL CHECK (event IN ('add', 'update', 'delete')),
     old_text TEXT,
     new_text TEXT,
     time DOUBLE PRECISION NOT NULL
   );
   CREATE INDEX memory_changes_by_memory ON @schema.memory_changes (memory_id, id);
   CREATE TABLE @schema.knowledge_documents (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     chunks INTEGER NOT NULL,
     created_at DOUBLE PRECISION NOT NULL
   );
   CREATE TABLE @schema.memory_partitions (
     kind TEXT NOT NULL,
     scope TEXT NOT NULL,
     version BIGINT NOT NULL,
     PRIMARY KEY (kind, scope)
   );
   CREATE TABLE @schema.memory_index_log (
     kind TEXT NOT NULL,
     scope TEXT NOT NULL,
     version BIGINT NOT NULL,
     position INTEGER NOT NULL,
     op TEXT NOT NULL CHECK (op IN ('put', 'remove', 'clear', 'none')),
     seq BIGINT,
     time DOUBLE PRECISION,
     speaker_terms TEXT,
     body_terms TEXT,
     context_terms TEXT,
     PRIMARY KEY (kind, scope, version, position)
   );`,
]

export function applyPostgresMemoryMigrations(
  pool: Pool,
  schema: string,
  logger?: Logger,
  options: ScopeMigrationOptions = {},
) {
  return applyPostgresMigrations(pool, {
    schema,
    component: 'memory',
    migrations: listPostgresMemoryMigrations(options),
    logger,
  })
}
