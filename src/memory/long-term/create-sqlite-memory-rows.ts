/** The rows and vectors a search reads, from the SQLite memory tables. */
import type Database from 'better-sqlite3'
import type { MemoryRowSource, RankedMemoryRow } from './memory-row-source.js'
import type { StoredVector } from './scan-vectors.js'

export function createSqliteMemoryRows(database: Database.Database): MemoryRowSource {
  const statements = {
    rows: database.prepare(
      `SELECT i.seq, i.id, i.kind, i.scope, i.text, i.speaker, i.time, i.metadata, i.source_turn,
              i.document_id, i.context, i.token_count, d.name AS source_name
       FROM memory_items i LEFT JOIN knowledge_documents d ON d.id = i.document_id
       WHERE i.seq IN (SELECT value FROM json_each(?))`,
    ),
    vectors: database.prepare(
      `SELECT v.seq AS seq, v.vector AS vector FROM memory_vectors v JOIN memory_items i ON i.seq = v.seq
       WHERE v.model = ? AND ((i.kind = 'memory' AND i.scope = ?) OR i.kind = 'knowledge')`,
    ),
  }
  return {
    readRows: (seqs) => statements.rows.all(JSON.stringify(seqs)) as RankedMemoryRow[],
    readVectors: ({ model, scope }) => statements.vectors.all(model, scope) as StoredVector[],
  }
}
