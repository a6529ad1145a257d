/**
 * What a search reads from its store besides the keyword index: rows by sequence number, and the
 * stored vectors of a scope. The SQLite and PostgreSQL stores each give one; the searcher and its
 * ranking are the same for both.
 */
import type { MemoryItemRow } from './memory-item-row.js'
import type { StoredVector } from './scan-vectors.js'

/**
 * A stored row as a search reads it: without its neighbour context (indexed, never shown, and often
 * longer than the row's own text), with the name of the knowledge document it came from (null for
 * a memory).
 */
export type RankedMemoryRow = Omit<MemoryItemRow, 'context'> & { source_name: string | null }

export interface ReadStoredVectorsOptions {
  /** The embeddings model the vectors must come from. */
  model: string
  /** The scope whose memories are read, besides every knowledge chunk. */
  scope: string
}

export interface MemoryRowSource {
  /** The rows of these sequence numbers that still exist, in any order. */
  readRows(seqs: readonly number[]): Promise<RankedMemoryRow[]> | RankedMemoryRow[]
  /** The vectors of a scope's memories and of the knowledge chunks. */
  readVectors(options: ReadStoredVectorsOptions): Promise<StoredVector[]> | StoredVector[]
}
