/** The `memory_items` and `memory_changes` rows and their conversion to the public record shapes. */
import type { KnowledgeDocument, MemoryChange, MemoryHit, MemoryRecord } from '../types.js'

export interface MemoryItemRow {
  seq: number
  id: string
  kind: 'memory' | 'knowledge'
  scope: string
  text: string
  speaker: string | null
  time: number
  metadata: string | null
  source_turn: string | null
  document_id: string | null
  context: string
  token_count: number
}

/** Knowledge chunks are shared by every scope; they sit under this scope value. */
export const knowledgeScope = ''
export function convertRowToRecord(row: Omit<MemoryItemRow, 'context'>): MemoryRecord {
  const record: MemoryRecord = { id: row.id, scope: row.scope, text: row.text, time: row.time }
  if (row.speaker !== null) record.speaker = row.speaker
  if (row.metadata !== null) record.metadata = JSON.parse(row.metadata) as Record<string, unknown>
  if (row.source_turn !== null) record.sourceTurn = row.source_turn
  return record
}

export function convertRowToHit(
  row: Omit<MemoryItemRow, 'context'>,
  score: number,
  sourceName?: string,
): MemoryHit {
  const hit: MemoryHit = { ...convertRowToRecord(row), score, kind: row.kind }
  if (sourceName !== undefined) hit.sourceName = sourceName
  return hit
}

export interface MemoryChangeRow {
  id: number | string
  memory_id: string
  event: MemoryChange['event']
  old_text: string | null
  new_text: string | null
  time: number
}

export function convertRowToChange(row: MemoryChangeRow): MemoryChange {
  const change: MemoryChange = {
    id: String(row.id),
    memoryId: row.memory_id,
    event: row.event,
    time: row.time,
  }
  if (row.old_text !== null) change.oldText = row.old_text
  if (row.new_text !== null) change.newText = row.new_text
  return change
}

export interface KnowledgeDocumentRow {
  id: string
  name: string
  chunks: number
  created_at: number
}

export function convertRowToDocument(row: KnowledgeDocumentRow): KnowledgeDocument {
  return { id: row.id, name: row.name, chunks: row.chunks, createdAt: row.created_at }
}
