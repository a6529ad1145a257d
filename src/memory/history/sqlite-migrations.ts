/**
 * Numbered schema migrations of the SQLite history tables. The version lives in a
 * `charpipe_schema_versions` row per component rather than in `PRAGMA user_version`, because the
 * same database file also holds other components' tables (long-term memory) with their own versions.
 */
import type Database from 'better-sqlite3'
import type { Logger } from '../../shared/logger.js'
import { HistoryStoreError } from './history-store-error.js'

const component = 'history'

/** Index `n` holds migration `n + 1`. Never edit a released entry: append a new one. */
export const sqliteHistoryMigrations: readonly string[] = [
  `CREATE TABLE history_sessions (
     id INTEGER PRIMARY KEY,
     character TEXT NOT NULL,
     session TEXT NOT NULL,
     -- Turns ever stored; each message carries the number of its turn (turn_seq).
     turn_count INTEGER NOT NULL DEFAULT 0,
     -- The reset marker: turns numbered at or below it are out of the current context.
     context_start_turn INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     UNIQUE (character, session)
   );
   CREATE TABLE history_messages (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     session_id INTEGER NOT NULL REFERENCES history_sessions (id) ON DELETE CASCADE,
     turn_seq INTEGER NOT NULL,
     turn TEXT NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
     content TEXT NOT NULL,
     emotion TEXT,
     interrupted INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     attachments TEXT
   );
   -- loadRecent: the window of the last turns of one session (the rowid rides along, so rows come
   -- out in insertion order without a sort).
   CREATE INDEX history_messages_by_turn ON history_messages (session_id, turn_seq);
   -- listMessages: paging back by id within one session.
   CREATE INDEX history_messages_by_session ON history_messages (session_id);`,
  // 2: user messages of failed turns, kept for the record but not sent to the model again.
  'ALTER TABLE history_messages ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;',
  // 3: a turn is stored once per session. Copies written before this (a retried write that had
  // landed after all) are dropped, keeping the first.
  `DELETE FROM history_messages WHERE id NOT IN
     (SELECT min(id) FROM history_messages GROUP BY session_id, turn, role);
   CREATE UNIQUE INDEX history_messages_once ON history_messages (session_id, turn, role);`,
  // 4: the role `event` (an idle turn's instruction). SQLite cannot change a CHECK in place: the
  // table is built again with its rows, ids and indexes.
  `CREATE TABLE history_messages_next (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     session_id INTEGER NOT NULL REFERENCES history_sessions (id) ON DELETE CASCADE,
     turn_seq INTEGER NOT NULL,
     turn TEXT NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'event')),
     content TEXT NOT NULL,
     emotion TEXT,
     interrupted INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     attachments TEXT,
     failed INTEGER NOT NULL DEFAULT 0
   );
   INSERT INTO history_messages_next
     (id, session_id, turn_seq, turn, role, content, emotion, interrupted, created_at, attachments, failed)
     SELECT id, session_id, turn_seq, turn, role, content, emotion, interrupted, created_at, attachments, failed
     FROM history_messages;
   DROP TABLE history_messages;
   ALTER TABLE history_messages_next RENAME TO history_messages;
   CREATE INDEX history_messages_by_turn ON history_messages (session_id, turn_seq);
   CREATE INDEX history_messages_by_session ON history_messages (session_id);
   CREATE UNIQUE INDEX history_messages_once ON history_messages (session_id, turn, role);`,
  // 5: the character's inner thought before a reply (character.thoughts).
  'ALTER TABLE history_messages ADD COLUMN thought TEXT;',
]

export interface ApplySqliteMigrationsResult {
  from: number
  to: number
}

/** Brings the schema to the latest version, each migration in its own transaction. */
export function applySqliteHistoryMigrations(
  database: Database.Database,
  logger?: Logger,
): ApplySqliteMigrationsResult {
  database.exec(`CREATE TABLE IF NOT EXISTS charpipe_schema_versions (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    applied_at INTEGER NOT NULL
  )`)
  const readVersion = database.prepare<[string], { version: number }>(
    'SELECT version FROM charpipe_schema_versions WHERE component = ?',
  )
  const writeVersion = database.prepare(
    `INSERT INTO charpipe_schema_versions (component, version, applied_at) VALUES (?, ?, ?)
     ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at`,
  )
  const from = readVersion.get(component)?.version ?? 0
  const latest = sqliteHistoryMigrations.length
  if (from > latest) {
    throw new HistoryStoreError(
      `history schema version ${from} is newer than this charpipe knows (${latest}); upgrade charpipe`,
    )
  }
  // IMMEDIATE takes the write lock first, so two processes opening a fresh file at once do not both
  // run a migration: the second one re-reads the version inside its transaction and skips.
  const migrate = database.transaction((version: number) => {
    const current = readVersion.get(component)?.version ?? 0
    if (current >= version) return
    database.exec(sqliteHistoryMigrations[version - 1]!)
    writeVersion.run(component, version, Date.now())
  })
  for (let version = from + 1; version <= latest; version++) {
    migrate.immediate(version)
    logger?.info({ component, version }, 'applied history schema migration')
  }
  return { from, to: latest }
}
