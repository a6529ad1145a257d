/**
 * The long-term memory tables live in the same SQLite file as the history, so they keep their own
 * version table (`memory_schema_version`) instead of `user_version`, which the history store owns.
 * Each migration runs once, in order, inside a transaction.
 */
import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { planScopeMigration, type ScopeMigrationOptions } from './plan-scope-migration.js'

/** A scope as one FTS token, as the FTS table of versions 1–3 kept it in its `scope_key` column. */
function convertScopeToKey(scope: string): string {
  return `s${createHash('sha1').update(scope).digest('hex').slice(0, 20)}`
}

type SqliteMigration = string | ((database: Database.Database, options: ScopeMigrationOptions) => void)

const migrations: SqliteMigration[] = [
  `CREATE TABLE memory_items (
     seq INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL CHECK (kind IN ('memory', 'knowledge')),
     scope TEXT NOT NULL,
     text TEXT NOT NULL,
     speaker TEXT,
     time INTEGER NOT NULL,
     metadata TEXT,
     source_turn TEXT,
     document_id TEXT,
     context TEXT NOT NULL DEFAULT '',
     token_count INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX memory_items_by_scope ON memory_items (kind, scope, seq);
   CREATE INDEX memory_items_by_document ON memory_items (document_id) WHERE document_id IS NOT NULL;
   CREATE VIRTUAL TABLE memory_fts USING fts5 (
     scope_key, speaker, body, context, tokenize = 'unicode61 remove_diacritics 2'
   );
   CREATE VIRTUAL TABLE memory_fts_terms USING fts5vocab (memory_fts, 'row');
   CREATE TABLE memory_vectors (
     seq INTEGER PRIMARY KEY,
     model TEXT NOT NULL,
     vector BLOB NOT NULL
   );
   CREATE TABLE memory_changes (
     id INTEGER PRIMARY KEY,
     memory_id TEXT NOT NULL,
     event TEXT NOT NULL CHECK (event IN ('add', 'update', 'delete')),
     old_text TEXT,
     new_text TEXT,
     time INTEGER NOT NULL
   );
   CREATE INDEX memory_changes_by_memory ON memory_changes (memory_id, id);
   CREATE TABLE knowledge_documents (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     chunks INTEGER NOT NULL,
     created_at INTEGER NOT NULL
   );`,
  // A count of writes to the items, kept by triggers so that every writer (another process too)
  // moves it: the in-process keyword index compares it to know when it is stale.
  `CREATE TABLE memory_write_count (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
   INSERT INTO memory_write_count (id, value) VALUES (1, 0);
   CREATE TRIGGER memory_items_count_insert AFTER INSERT ON memory_items
     BEGIN UPDATE memory_write_count SET value = value + 1 WHERE id = 1; END;
   CREATE TRIGGER memory_items_count_update AFTER UPDATE ON memory_items
     BEGIN UPDATE memory_write_count SET value = value + 1 WHERE id = 1; END;
   CREATE TRIGGER memory_items_count_delete AFTER DELETE ON memory_items
     BEGIN UPDATE memory_write_count SET value = value + 1 WHERE id = 1; END;`,
  // 3: scopes encoded so that no two conversations share one (see memoryScopeOf). One UPDATE reads
  // every row's old scope, so a scope that moves to where another moves away is not moved twice.
  (database, options) => {
    const scopes = database
      .prepare("SELECT DISTINCT scope FROM memory_items WHERE kind = 'memory'")
      .pluck()
      .all() as string[]
    const moves = planScopeMigration(scopes, options)
    if (moves.length === 0) return
    database.exec('CREATE TEMP TABLE scope_moves (from_scope TEXT PRIMARY KEY, to_scope TEXT NOT NULL)')
    const insertMove = database.prepare('INSERT INTO scope_moves (from_scope, to_scope) VALUES (?, ?)')
    for (const [from, to] of moves) insertMove.run(from, to)
    database.exec(`UPDATE memory_items SET scope = (SELECT to_scope FROM scope_moves WHERE from_scope = scope)
      WHERE kind = 'memory' AND scope IN (SELECT from_scope FROM scope_moves)`)
    const moveTerms = database.prepare(
      "UPDATE memory_fts SET scope_key = ? WHERE rowid IN (SELECT seq FROM memory_items WHERE kind = 'memory' AND scope = ?)",
    )
    for (const [, to] of moves) moveTerms.run(convertScopeToKey(to), to)
    database.exec('DROP TABLE scope_moves')
  },
  // 4: the segmented terms in a plain table. Search runs on the in-process keyword index, which
  // reads these columns to build a partition; the FTS5 table's own inverted index was never queried
  // and cost each memory write a third of its CPU.
  `CREATE TABLE memory_terms (
     seq INTEGER PRIMARY KEY,
     speaker TEXT NOT NULL,
     body TEXT NOT NULL,
     context TEXT NOT NULL
   );
   INSERT INTO memory_terms (seq, speaker, body, context)
     SELECT rowid, coalesce(speaker, ''), coalesce(body, ''), coalesce(context, '') FROM memory_fts;
   DROP TABLE memory_fts_terms;
   DROP TABLE memory_fts;`,
]

/** Brings the memory tables up to the latest version; returns the version reached. */
export function migrateMemorySchema(
  database: Database.Database,
  options: ScopeMigrationOptions = {},
): number {
  database.exec('CREATE TABLE IF NOT EXISTS memory_schema_version (version INTEGER NOT NULL)')
  const readVersion = database
    .prepare<[], number | null>('SELECT max(version) FROM memory_schema_version')
    .pluck()
  const from = readVersion.get() ?? 0
  if (from > migrations.length) {
    throw new Error(
      `the memory tables are at version ${from}, newer than this charpipe understands (${migrations.length})`,
    )
  }
  // IMMEDIATE takes the write lock first, and the version is read again under it: another process
  // opening the same file (the server and `charpipe kb add`) may have applied the migration since.
  const migrate = database.transaction((version: number) => {
    if ((readVersion.get() ?? 0) >= version) return
    const migration = migrations[version - 1] as SqliteMigration
    if (typeof migration === 'string') database.exec(migration)
    else migration(database, options)
    database.prepare('INSERT INTO memory_schema_version (version) VALUES (?)').run(version)
  })
  for (let version = from + 1; version <= migrations.length; version++) migrate.immediate(version)
  return migrations.length
}
