/**
 * Fills one PostgreSQL session with `turns` turns in two set-based statements. Appending 50,000 turns
 * one transaction at a time would take the bench minutes; this writes the same rows the store writes.
 */
import type pg from 'pg'
import type { ConversationScope } from '../../src/memory/types.js'

export async function fillPostgresSession(
  pool: pg.Pool,
  schema: string,
  scope: ConversationScope,
  turns: number,
) {
  const tables = `"${schema}"`
  const now = Date.now()
  const session = await pool.query<{ id: string; turn_count: number }>(
    `INSERT INTO ${tables}.history_sessions ("character", session, turn_count, context_start_turn, created_at, updated_at)
     VALUES ($1, $2, $3, 0, $4, $4)
     ON CONFLICT ("character", session) DO UPDATE SET turn_count = history_sessions.turn_count + $3
     RETURNING id, turn_count`,
    [scope.character, scope.session, turns, now],
  )
  const { id, turn_count: last } = session.rows[0]!
  await pool.query(
    `INSERT INTO ${tables}.history_messages (session_id, turn_seq, turn, role, content, emotion, interrupted, created_at)
     SELECT $1, n, 'turn-' || n, role, CASE role WHEN 'user' THEN '问题 ' ELSE '回答 ' END || n || '：' || repeat('今天天气不错。', 6),
            CASE role WHEN 'assistant' THEN '开心' END, FALSE, $4
     FROM generate_series($2::int, $3::int) AS n, (VALUES ('user'), ('assistant')) AS roles (role)
     ORDER BY n, role DESC`,
    [id, last - turns + 1, last, now],
  )
}
