/** The rows and vectors a search reads, from the PostgreSQL memory tables. */
import type { Pool } from 'pg'
import type { RowCache } from './create-row-cache.js'
import type { MemoryRowSource, RankedMemoryRow } from './memory-row-source.js'
import { namePostgresStatement } from './name-postgres-statement.js'
import { convertPostgresItemRow, type PostgresMemoryItemRow } from './postgres-memory-item-row.js'
import type { StoredVector } from './scan-vectors.js'

/**
 * `tables` is the quoted schema name. Vectors are read whole and ranked in process, as the SQLite
 * store does; with pgvector the `vectors` query would instead order by distance and take the
 * nearest, and `scanVectors` would only keep that order.
 */
export function createPostgresMemoryRows(pool: Pool, tables: string, cache: RowCache): MemoryRowSource {
  const sql = {
    // Not the index terms nor the neighbour context: a search needs the row, and they would more
    // than double what is sent.
    rows: `SELECT i.seq, i.id, i.kind, i.scope, i.text, i.speaker, i.time, i.metadata, i.source_turn,
        i.document_id, i.token_count, d.name AS source_name
      FROM ${tables}.memory_items i LEFT JOIN ${tables}.knowledge_documents d ON d.id = i.document_id
      WHERE i.seq = ANY($1::bigint[])`,
    vectors: `SELECT v.seq, v.vector FROM ${tables}.memory_vectors v
      JOIN ${tables}.memory_items i ON i.seq = v.seq
      WHERE v.model = $1 AND ((i.kind = 'memory' AND i.scope = $2) OR i.kind = 'knowledge')`,
  }
  const rowsStatementName = namePostgresStatement('memory_rows', sql.rows)
  return {
    async readRows(seqs) {
      const { found, missing } = cache.find(seqs)
      if (missing.length === 0) return found
      const mark = cache.markRead()
      const result = await pool.query<
        Omit<PostgresMemoryItemRow, 'context'> & { source_name: string | null }
      >({
        name: rowsStatementName,
        text: sql.rows,
        values: [missing],
      })
      const read = result.rows.map((row) => convertPostgresItemRow(row) as RankedMemoryRow)
      cache.keep(mark, read)
      return [...found, ...read]
    },
    async readVectors({ model, scope }) {
      const result = await pool.query<{ seq: string; vector: Buffer }>(sql.vectors, [model, scope])
      return result.rows.map((row): StoredVector => ({ seq: Number(row.seq), vector: row.vector }))
    },
  }
}
