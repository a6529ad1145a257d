/**
 * The two read queries whose plans matter (they must use an index and read only what they return),
 * kept apart so the tests can `EXPLAIN QUERY PLAN` the very text the store runs.
 */
const messageColumns =
  'm.id, m.turn, m.role, m.content, m.emotion, m.interrupted, m.failed, m.created_at, m.attachments, m.thought'

export const sqliteHistoryQueries = {
  /** The last `@maxTurns` turns after the reset marker: a range on (session_id, turn_seq). */
  loadRecent: `SELECT ${messageColumns}
    FROM history_sessions s
    JOIN history_messages m
      ON m.session_id = s.id AND m.turn_seq > max(s.context_start_turn, s.turn_count - @maxTurns)
    WHERE s.character = @character AND s.session = @session
    ORDER BY m.turn_seq, m.id`,
  /** Newest first from `@beforeId` down (the caller reverses the page). */
  listMessages: `SELECT ${messageColumns}
    FROM history_sessions s
    JOIN history_messages m ON m.session_id = s.id AND m.id < @beforeId
    WHERE s.character = @character AND s.session = @session
    ORDER BY m.id DESC
    LIMIT @limit`,
  /** Whether the session has one turn: the same index, no message read. */
  hasTurn: `SELECT 1 AS found
    FROM history_sessions s
    JOIN history_messages m INDEXED BY history_messages_once ON m.session_id = s.id AND m.turn = @turn
    WHERE s.character = @character AND s.session = @session
    LIMIT 1`,
  /** The messages of one turn: the unique index on (session_id, turn, role). */
  findTurn: `SELECT ${messageColumns}
    FROM history_sessions s
    JOIN history_messages m INDEXED BY history_messages_once ON m.session_id = s.id AND m.turn = @turn
    WHERE s.character = @character AND s.session = @session
    ORDER BY m.id`,
} as const
