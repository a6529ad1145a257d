/**
 * A `memory_items` row as PostgreSQL returns it: `seq` is a bigint, which pg hands over as a string
 * (it may pass 2^53; ours never will), and the row carries its stored index terms.
 */
import type { StoredTermColumns } from './create-keyword-partitions.js'
import type { MemoryItemRow } from './memory-item-row.js'

export type PostgresMemoryItemRow = Omit<MemoryItemRow, 'seq'> & {
  seq: string | number
  speaker_terms: string
  body_terms: string
  context_terms: string
}

export const postgresItemColumns =
  'i.seq, i.id, i.kind, i.scope, i.text, i.speaker, i.time, i.metadata, i.source_turn, i.document_id, i.context, i.token_count, i.speaker_terms, i.body_terms, i.context_terms'

export function convertPostgresItemRow<Row extends { seq: string | number }>(
  row: Row,
): Omit<Row, 'seq'> & { seq: number } {
  return { ...row, seq: Number(row.seq) }
}

/** The terms a row is indexed with, as the keyword index reads them. */
export function readStoredTerms(row: PostgresMemoryItemRow): StoredTermColumns {
  return { speaker: row.speaker_terms, body: row.body_terms, context: row.context_terms }
}
