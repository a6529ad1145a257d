/**
 * The row shape the SQL stores (SQLite, PostgreSQL) share, and the conversion back to a
 * `StoredMessage`: optional fields come back absent rather than null or false, like the in-memory
 * store returns them.
 */
import type { StoredMessage } from '../types.js'

export interface StoredMessageRow {
  id: number | string | bigint
  turn: string
  role: string
  content: string
  emotion: string | null
  interrupted: number | boolean
  failed: number | boolean
  created_at: number | string
  attachments: string | null
  thought: string | null
}

export function convertRowToStoredMessage(row: StoredMessageRow): StoredMessage {
  const message: StoredMessage = {
    id: String(row.id),
    role: row.role as StoredMessage['role'],
    content: row.content,
    createdAt: Number(row.created_at),
    turn: row.turn,
  }
  if (row.emotion !== null) message.emotion = row.emotion
  if (row.interrupted === true || row.interrupted === 1) message.interrupted = true
  if (row.failed === true || row.failed === 1) message.failed = true
  if (row.attachments !== null) message.attachments = JSON.parse(row.attachments) as string[]
  if (row.thought !== null) message.thought = row.thought
  return message
}

/** The column values of one message, in the order the insert statements list them. */
export function convertStoredMessageToValues(message: StoredMessage) {
  return {
    role: message.role,
    content: message.content,
    emotion: message.emotion ?? null,
    interrupted: message.interrupted === true,
    failed: message.failed === true,
    createdAt: message.createdAt,
    attachments: message.attachments === undefined ? null : JSON.stringify(message.attachments),
    thought: message.thought ?? null,
  }
}
