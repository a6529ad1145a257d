/**
 * History in PostgreSQL, for several servers sharing one conversation store. Same tables and the same
 * indexed window as the SQLite store; each turn is one transaction whose session-row upsert also
 * serialises concurrent writers of one session.
 */
import type { Pool } from 'pg'
import { BadRequestError, StoreUnavailableError } from '../../shared/errors.js'
import { getLogger, type Logger } from '../../shared/logger.js'
import { openPostgresStore } from '../open-postgres-store.js'
import { runPostgresTransaction } from '../run-postgres-transaction.js'
import type { ConversationScope, HistoryStore, StoredMessage } from '../types.js'
import { applyPostgresHistoryMigrations, quoteIdentifier } from './postgres-migrations.js'
import {
  convertRowToStoredMessage,
  convertStoredMessageToValues,
  type StoredMessageRow,
} from './stored-message-row.js'
import { validateCompletedTurn, validateMaxTurns, validateScope } from './validate-completed-turn.js'

export interface PostgresHistoryStoreOptions {
  /** `postgres://user:password@host:port/database`. Either this or `pool`. */
  url?: string
  /** A pg Pool the caller owns (and ends). */
  pool?: Pool
  /**
   * The schema that holds the tables; created when missing.
   * @default 'public'
   */
  schema?: string
  /**
   * Longest wait for a connection or one query, in milliseconds (with `url`).
   * @default 1000
   */
  timeoutMs?: number
  logger?: Logger
}

// Thrown inside a turn's transaction to roll it back when the turn is there already.
const storedAlready = Symbol('stored already')
const uniqueViolation = '23505'

const messageColumns =
  'm.id, m.turn, m.role, m.content, m.emotion, m.interrupted, m.failed, m.created_at, m.attachments, m.thought'

/** Creates a PostgreSQL history store; connects and migrates before it resolves. */
export async function createPostgresHistoryStore(
  options: PostgresHistoryStoreOptions,
): Promise<HistoryStore> {
  const logger = options.logger ?? getLogger('history')
  const { pool, ownsPool, schema } = await openPostgresStore({
    ...options,
    logger,
    factoryName: 'createPostgresHistoryStore',
    holds: 'history',
    neededFor: 'history.store: postgres',
    migrate: applyPostgresHistoryMigrations,
  })

  const tables = quoteIdentifier(schema)
  const sql = {
    // A fenced turn ($4) below the session's stored fence updates nothing and returns no row.
    bumpSession: `INSERT INTO ${tables}.history_sessions ("character", session, turn_count, context_start_turn, created_at, updated_at, fence)
      VALUES ($1, $2, 1, 0, $3, $3, COALESCE($4::bigint, 0))
      ON CONFLICT ("character", session)
      DO UPDATE SET turn_count = history_sessions.turn_count + 1, updated_at = EXCLUDED.updated_at,
        fence = GREATEST(history_sessions.fence, EXCLUDED.fence)
      WHERE $4::bigint IS NULL OR history_sessions.fence <= $4::bigint
      RETURNING id, turn_count`,
    insertMessage: `INSERT INTO ${tables}.history_messages
      (session_id, turn_seq, turn, role, content, emotion, interrupted, failed, created_at, attachments, thought)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    loadRecent: `SELECT ${messageColumns} FROM ${tables}.history_sessions s
      JOIN ${tables}.history_messages m
        ON m.session_id = s.id AND m.turn_seq > GREATEST(s.context_start_turn, s.turn_count - $3)
      WHERE s."character" = $1 AND s.session = $2
      ORDER BY m.turn_seq, m.id`,
    hasTurn: `SELECT 1 FROM ${tables}.history_sessions s
      JOIN ${tables}.history_messages m ON m.session_id = s.id AND m.turn = $3
      WHERE s."character" = $1 AND s.session = $2
      LIMIT 1`,
    findTurn: `SELECT ${messageColumns} FROM ${tables}.history_sessions s
      JOIN ${tables}.history_messages m ON m.session_id = s.id AND m.turn = $3
      WHERE s."character" = $1 AND s.session = $2
      ORDER BY m.id`,
    listMessages: `SELECT ${messageColumns} FROM ${tables}.history_sessions s
      JOIN ${tables}.history_messages m ON m.session_id = s.id AND ($3::bigint IS NULL OR m.id < $3::bigint)
      WHERE s."character" = $1 AND s.session = $2
      ORDER BY m.id DESC LIMIT $4`,
    countTurns: `SELECT turn_count - context_start_turn AS turns FROM ${tables}.history_sessions
      WHERE "character" = $1 AND session = $2`,
    clearSession: `DELETE FROM ${tables}.history_sessions WHERE "character" = $1 AND session = $2`,
    redactTurn: `UPDATE ${tables}.history_messages m SET content = $4, attachments = NULL
      FROM ${tables}.history_sessions s
      WHERE m.session_id = s.id AND s."character" = $1 AND s.session = $2 AND m.turn = $3 AND m.role = 'user'`,
    // A replaced turn: only the session's newest, and only inside the current context.
    deleteNewestTurn: `DELETE FROM ${tables}.history_messages m USING ${tables}.history_sessions s
      WHERE m.session_id = s.id AND s."character" = $1 AND s.session = $2 AND m.turn = $3
        AND m.turn_seq = s.turn_count AND s.turn_count > s.context_start_turn`,
    unbumpSession: `UPDATE ${tables}.history_sessions SET turn_count = turn_count - 1
      WHERE "character" = $1 AND session = $2`,
    resetContext: `UPDATE ${tables}.history_sessions SET context_start_turn = turn_count, updated_at = $3
      WHERE "character" = $1 AND session = $2`,
    listSessions: `SELECT session FROM ${tables}.history_sessions WHERE "character" = $1 ORDER BY id`,
    // Held by a turn's write until it commits or rolls back; a read-back takes it to wait for that.
    lockSession: 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))',
    // A writer whose client went away without a word (a partition) lets go at its deadline, not at
    // the operating system's keepalive.
    boundIdleWrite: `SELECT set_config('idle_in_transaction_session_timeout', $1, true)`,
    // How long until the deadline ($1, ms since the epoch) passes on the server's clock.
    untilDeadline: 'SELECT $1::double precision - extract(epoch FROM clock_timestamp()) * 1000 AS ms',
  }
  const lockValues = (scope: ConversationScope) => [JSON.stringify([schema, scope.character]), scope.session]
  const messageValues = (sessionId: string, turnSeq: number, turn: string, message: StoredMessage) => {
    const values = convertStoredMessageToValues(message)
    return [
      sessionId,
      turnSeq,
      turn,
      values.role,
      values.content,
      values.emotion,
      values.interrupted,
      values.failed,
      values.createdAt,
      values.attachments,
      values.thought,
    ]
  }
  const scopeValues = (scope: ConversationScope) => [scope.character, scope.session]

  return {
    async loadRecent(scope, maxTurns) {
      validateScope(scope)
      validateMaxTurns(maxTurns)
      if (maxTurns <= 0) return []
      const result = await pool.query<StoredMessageRow>(sql.loadRecent, [...scopeValues(scope), maxTurns])
      return result.rows.map(convertRowToStoredMessage)
    },

    async appendTurn(scope, turn, appendOptions = {}) {
      validateCompletedTurn(scope, turn)
      const transaction = {
        logger,
        doing: 'a turn write',
        // A stale fence, or the turn stored already, is an answer, not a broken connection: the
        // client goes back to the pool.
        isAnswer: (error: unknown) => error instanceof StoreUnavailableError || error === storedAlready,
        ...(appendOptions.deadline === undefined ? {} : { deadline: appendOptions.deadline }),
        commitGate: appendOptions.commitGate,
      }
      const write = runPostgresTransaction(pool, transaction, async (client) => {
        await client.query(sql.lockSession, lockValues(scope))
        if (appendOptions.deadline !== undefined) {
          const idleMs = Math.max(1, Math.ceil(appendOptions.deadline - Date.now()))
          await client.query(sql.boundIdleWrite, [String(idleMs)])
        }
        // Stored already (a resend, a retried write): once is enough.
        const found = await client.query(sql.findTurn, [...scopeValues(scope), turn.turn])
        if (found.rows.length > 0) throw storedAlready
        if (appendOptions.replaces !== undefined) {
          const removed = await client.query(sql.deleteNewestTurn, [
            ...scopeValues(scope),
            appendOptions.replaces,
          ])
          // The new turn takes the removed one's number: the window of the last turns stays whole.
          if ((removed.rowCount ?? 0) > 0) await client.query(sql.unbumpSession, scopeValues(scope))
        }
        const session = await client.query<{ id: string; turn_count: number }>(sql.bumpSession, [
          ...scopeValues(scope),
          Date.now(),
          turn.fence ?? null,
        ])
        if (session.rows.length === 0) {
          throw new StoreUnavailableError(
            `the turn was not stored: a later turn of session ${JSON.stringify(scope.session)} holds its lock (fence ${turn.fence} is stale)`,
            { store: 'cluster' },
          )
        }
        const { id, turn_count: turnSeq } = session.rows[0]!
        try {
          if (turn.user)
            await client.query(sql.insertMessage, messageValues(id, turnSeq, turn.turn, turn.user))
          if (turn.assistant)
            await client.query(sql.insertMessage, messageValues(id, turnSeq, turn.turn, turn.assistant))
        } catch (error) {
          // Another server stored the same turn meanwhile (the unique index): it is stored.
          if ((error as { code?: string }).code === uniqueViolation) throw storedAlready
          throw error
        }
      })
      await write.catch((error: unknown) => {
        if (error !== storedAlready) throw error
      })
    },

    async findTurn(scope, turn) {
      validateScope(scope)
      const result = await pool.query<StoredMessageRow>(sql.findTurn, [...scopeValues(scope), turn])
      return result.rows.map(convertRowToStoredMessage)
    },

    async hasTurn(scope, turn) {
      validateScope(scope)
      const result = await pool.query(sql.hasTurn, [...scopeValues(scope), turn])
      return result.rows.length > 0
    },

    async settleTurn(scope, turn, deadline) {
      validateScope(scope)
      for (;;) {
        // Under the session's write lock: a write still running has committed or rolled back.
        const settled = await runPostgresTransaction(
          pool,
          { logger, doing: 'a turn read-back' },
          async (client) => {
            await client.query(sql.lockSession, lockValues(scope))
            const found = await client.query(sql.findTurn, [...scopeValues(scope), turn])
            if (found.rows.length > 0) return { stored: true, waitMs: 0 }
            const until = await client.query<{ ms: number }>(sql.untilDeadline, [deadline])
            return { stored: false, waitMs: Number(until.rows[0]?.ms ?? 0) }
          },
        )
        // Past the deadline on the server's clock, a write not yet committed refuses itself.
        if (settled.stored || settled.waitMs < 0) return settled.stored
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(settled.waitMs) + 1))
      }
    },

    async listMessages(scope, listOptions = {}) {
      validateScope(scope)
      const { beforeId, limit } = listOptions
      if (beforeId !== undefined && !/^\d+$/.test(beforeId)) {
        throw new BadRequestError(
          `listMessages: beforeId must be a message id (digits), got ${JSON.stringify(beforeId)}`,
        )
      }
      if (limit !== undefined && !Number.isInteger(limit)) {
        throw new BadRequestError('listMessages: limit must be a whole number')
      }
      if (limit !== undefined && limit <= 0) return []
      const result = await pool.query<StoredMessageRow>(sql.listMessages, [
        ...scopeValues(scope),
        beforeId ?? null,
        limit ?? null,
      ])
      return result.rows.reverse().map(convertRowToStoredMessage)
    },

    async countTurns(scope) {
      validateScope(scope)
      const result = await pool.query<{ turns: number }>(sql.countTurns, scopeValues(scope))
      return result.rows[0]?.turns ?? 0
    },

    async clearSession(scope) {
      validateScope(scope)
      // One statement: the messages go with the session row (ON DELETE CASCADE).
      await pool.query(sql.clearSession, scopeValues(scope))
    },

    async redactTurn(scope, turn, marker) {
      validateScope(scope)
      const result = await pool.query(sql.redactTurn, [...scopeValues(scope), turn, marker])
      return result.rowCount ?? 0
    },

    async resetContext(scope) {
      validateScope(scope)
      await pool.query(sql.resetContext, [...scopeValues(scope), Date.now()])
    },

    async listSessions(character) {
      const result = await pool.query<{ session: string }>(sql.listSessions, [character])
      return result.rows.map((row) => row.session)
    },

    async close() {
      if (ownsPool && !pool.ended) await pool.end()
    },
  }
}
