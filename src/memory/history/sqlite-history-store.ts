/**
 * The default history store: one SQLite file (better-sqlite3). better-sqlite3 is synchronous, so
 * every call here is one short indexed statement or one small transaction; nothing scans a session.
 */
import type Database from 'better-sqlite3'
import { BadRequestError } from '../../shared/errors.js'
import { getLogger, type Logger } from '../../shared/logger.js'
import { joinWalCheckpoints } from '../checkpoint-in-background.js'
import { createPrivateDatabaseFile, restrictDatabaseSideFiles } from '../create-private-database-file.js'
import { openSqliteDatabase } from '../open-sqlite-database.js'
import type { CompletedTurn, ConversationScope, HistoryStore, StoredMessage } from '../types.js'
import { describeError, HistoryStoreError } from './history-store-error.js'
import { sqliteHistoryQueries } from './sqlite-history-queries.js'
import { applySqliteHistoryMigrations } from './sqlite-migrations.js'
import {
  convertRowToStoredMessage,
  convertStoredMessageToValues,
  type StoredMessageRow,
} from './stored-message-row.js'
import { validateCompletedTurn, validateMaxTurns, validateScope } from './validate-completed-turn.js'

export interface SqliteHistoryStoreOptions {
  /** The database file; its folder is created when missing. `:memory:` for a throwaway database. */
  path: string
  logger?: Logger
  /**
   * `normal` (default): in WAL mode a commit survives a crash or kill of the process; only a power
   * loss or OS crash may drop the last commits, and never corrupts the file. `full` syncs the WAL on
   * every commit, so commits survive power loss too, at the cost of one fsync per turn.
   * @default 'normal'
   */
  synchronous?: 'normal' | 'full'
  /**
   * How long a write waits for another process holding the lock. It blocks the event loop while it
   * waits, so keep it short.
   * @default 2000
   */
  busyTimeoutMs?: number
}

function openDatabase(options: SqliteHistoryStoreOptions, logger: Logger): Database.Database {
  let database: Database.Database | undefined
  try {
    createPrivateDatabaseFile(options.path)
    database = openSqliteDatabase(options.path, { timeout: options.busyTimeoutMs ?? 2000 })
    database.pragma('journal_mode = WAL')
    restrictDatabaseSideFiles(options.path)
    database.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`)
    database.pragma('foreign_keys = ON')
    const migrated = applySqliteHistoryMigrations(database, logger)
    logger.debug({ path: options.path, schema: migrated.to }, 'history database open')
    return database
  } catch (error) {
    database?.close()
    throw new HistoryStoreError(`cannot open the history database ${options.path}: ${describeError(error)}`, {
      cause: error,
    })
  }
}

/** Creates a SQLite history store (WAL, migrations, one transaction per turn). */
export function createSqliteHistoryStore(options: SqliteHistoryStoreOptions): HistoryStore {
  if (!options || typeof options.path !== 'string' || options.path.length === 0) {
    throw new HistoryStoreError('createSqliteHistoryStore: path must be a non-empty string')
  }
  const logger = options.logger ?? getLogger('history')
  const database = openDatabase(options, logger)
  const checkpoints = joinWalCheckpoints(options.path, database, { logger })

  // Prepared once: better-sqlite3 statements are compiled SQL that can be run many times.
  const statements = {
    bumpSession: database.prepare<
      { character: string; session: string; now: number },
      { id: number; turn_count: number }
    >(
      `INSERT INTO history_sessions (character, session, turn_count, context_start_turn, created_at, updated_at)
       VALUES (@character, @session, 1, 0, @now, @now)
       ON CONFLICT (character, session) DO UPDATE SET turn_count = turn_count + 1, updated_at = excluded.updated_at
       RETURNING id, turn_count`,
    ),
    insertMessage: database.prepare(
      `INSERT INTO history_messages (session_id, turn_seq, turn, role, content, emotion, interrupted, failed, created_at, attachments, thought)
       VALUES (@sessionId, @turnSeq, @turn, @role, @content, @emotion, @interrupted, @failed, @createdAt, @attachments, @thought)`,
    ),
    loadRecent: database.prepare<{ character: string; session: string; maxTurns: number }, StoredMessageRow>(
      sqliteHistoryQueries.loadRecent,
    ),
    listMessages: database.prepare<
      { character: string; session: string; beforeId: number; limit: number },
      StoredMessageRow
    >(sqliteHistoryQueries.listMessages),
    countTurns: database.prepare<[string, string], { turns: number }>(
      'SELECT turn_count - context_start_turn AS turns FROM history_sessions WHERE character = ? AND session = ?',
    ),
    findSession: database.prepare<[string, string], { id: number }>(
      'SELECT id FROM history_sessions WHERE character = ? AND session = ?',
    ),
    findTurn: database.prepare<{ character: string; session: string; turn: string }, StoredMessageRow>(
      sqliteHistoryQueries.findTurn,
    ),
    hasTurn: database.prepare<{ character: string; session: string; turn: string }, { found: number }>(
      sqliteHistoryQueries.hasTurn,
    ),
    deleteMessages: database.prepare('DELETE FROM history_messages WHERE session_id = ?'),
    redactTurn: database.prepare<{ character: string; session: string; turn: string; marker: string }>(
      `UPDATE history_messages SET content = @marker, attachments = NULL
        WHERE turn = @turn AND role = 'user'
          AND session_id = (SELECT id FROM history_sessions WHERE character = @character AND session = @session)`,
    ),

    // A replaced turn: only the session's newest, and only inside the current context.
    deleteNewestTurn: database.prepare<{ character: string; session: string; turn: string }>(
      `DELETE FROM history_messages
       WHERE turn = @turn AND (session_id, turn_seq) IN (
         SELECT id, turn_count FROM history_sessions
         WHERE character = @character AND session = @session AND turn_count > context_start_turn)`,
    ),
    unbumpSession: database.prepare(
      'UPDATE history_sessions SET turn_count = turn_count - 1 WHERE character = ? AND session = ?',
    ),
    deleteSession: database.prepare('DELETE FROM history_sessions WHERE id = ?'),
    resetContext: database.prepare(
      `UPDATE history_sessions SET context_start_turn = turn_count, updated_at = ?
       WHERE character = ? AND session = ?`,
    ),
    listSessions: database.prepare<[string], { session: string }>(
      'SELECT session FROM history_sessions WHERE character = ? ORDER BY id',
    ),
  }

  const insertMessage = (sessionId: number, turnSeq: number, turn: string, message: StoredMessage) => {
    const values = convertStoredMessageToValues(message)
    statements.insertMessage.run({
      sessionId,
      turnSeq,
      turn,
      ...values,
      interrupted: values.interrupted ? 1 : 0,
      failed: values.failed ? 1 : 0,
    })
  }

  // One transaction per turn: both messages and the session's turn counter commit together or not at
  // all. IMMEDIATE takes the write lock up front, so a second process waits instead of failing late.
  const appendTurn = database.transaction(
    (scope: ConversationScope, turn: CompletedTurn, replaces?: string) => {
      // Stored already (a resend, a retried write): once is enough.
      if (statements.findTurn.get({ ...pickScope(scope), turn: turn.turn })) return
      if (replaces !== undefined) {
        const removed = statements.deleteNewestTurn.run({ ...pickScope(scope), turn: replaces })
        // The new turn takes the removed one's number: the window of the last turns stays whole.
        if (removed.changes > 0) statements.unbumpSession.run(scope.character, scope.session)
      }
      const session = statements.bumpSession.get({ ...pickScope(scope), now: Date.now() })!
      if (turn.user) insertMessage(session.id, session.turn_count, turn.turn, turn.user)
      if (turn.assistant) insertMessage(session.id, session.turn_count, turn.turn, turn.assistant)
    },
  )

  const clearSession = database.transaction((scope: ConversationScope) => {
    const session = statements.findSession.get(scope.character, scope.session)
    if (!session) return
    statements.deleteMessages.run(session.id)
    statements.deleteSession.run(session.id)
  })

  const ensureOpen = () => {
    if (!database.open) throw new HistoryStoreError(`the history database ${options.path} is closed`)
  }

  return {
    async loadRecent(scope, maxTurns) {
      validateScope(scope)
      validateMaxTurns(maxTurns)
      ensureOpen()
      if (maxTurns <= 0) return []
      return statements.loadRecent.all({ ...pickScope(scope), maxTurns }).map(convertRowToStoredMessage)
    },

    async appendTurn(scope, turn, appendOptions = {}) {
      validateCompletedTurn(scope, turn)
      ensureOpen()
      appendTurn.immediate(scope, turn, appendOptions.replaces)
      checkpoints.noteWrite()
    },

    async findTurn(scope, turn) {
      validateScope(scope)
      ensureOpen()
      return statements.findTurn.all({ ...pickScope(scope), turn }).map(convertRowToStoredMessage)
    },

    async hasTurn(scope, turn) {
      validateScope(scope)
      ensureOpen()
      return statements.hasTurn.get({ ...pickScope(scope), turn }) !== undefined
    },

    async listMessages(scope, listOptions = {}) {
      validateScope(scope)
      ensureOpen()
      const beforeId =
        listOptions.beforeId === undefined ? Number.MAX_SAFE_INTEGER : parseMessageId(listOptions.beforeId)
      const limit = listOptions.limit ?? -1
      if (!Number.isInteger(limit)) throw new BadRequestError('listMessages: limit must be a whole number')
      if (listOptions.limit !== undefined && limit <= 0) return []
      const rows = statements.listMessages.all({ ...pickScope(scope), beforeId, limit })
      return rows.reverse().map(convertRowToStoredMessage)
    },

    async countTurns(scope) {
      validateScope(scope)
      ensureOpen()
      return statements.countTurns.get(scope.character, scope.session)?.turns ?? 0
    },

    async clearSession(scope) {
      validateScope(scope)
      ensureOpen()
      clearSession.immediate(scope)
      checkpoints.noteWrite()
    },

    async redactTurn(scope, turn, marker) {
      validateScope(scope)
      ensureOpen()
      const redacted = Number(statements.redactTurn.run({ ...pickScope(scope), turn, marker }).changes)
      checkpoints.noteWrite()
      return redacted
    },

    async resetContext(scope) {
      validateScope(scope)
      ensureOpen()
      statements.resetContext.run(Date.now(), scope.character, scope.session)
      checkpoints.noteWrite()
    },

    async listSessions(character) {
      ensureOpen()
      return statements.listSessions.all(character).map((row) => row.session)
    },

    async close() {
      await checkpoints.releaseAfterCheckpoint()
      if (database.open) database.close()
    },
  }
}

const pickScope = (scope: ConversationScope) => ({ character: scope.character, session: scope.session })

function parseMessageId(id: string): number {
  const value = Number(id)
  if (!/^\d+$/.test(id) || !Number.isSafeInteger(value)) {
    throw new BadRequestError(
      `listMessages: beforeId must be a message id (digits), got ${JSON.stringify(id)}`,
    )
  }
  return value
}
