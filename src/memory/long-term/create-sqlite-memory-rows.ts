/**
 * The rows and vectors a search reads, from the SQLite memory tables. Rows read lately are kept
 * (`RowCache`): the best matches of a chat's common words come back turn after turn, and a row
 * costs microseconds of SQLite and object building each time it is read. The store forgets a row
 * whenever it writes it, and every row when another connection wrote (`forgetAll`).
 */
import type Database from 'better-sqlite3'
import type { RowCache } from './create-row-cache.js'
import type { MemoryRowSource, RankedMemoryRow } from './memory-row-source.js'
import type { StoredVector } from './scan-vectors.js'

export function createSqliteMemoryRows(database: Database.Database, cache: RowCache): MemoryRowSource {
  const statements = {
    rows: database.prepare(
      `SELECT i.seq, i.id, i.kind, i.scope, i.text, i.speaker, i.time, i.metadata, i.source_turn,
              i.document_id, i.token_count, d.name AS source_name
       FROM memory_items i LEFT JOIN knowledge_documents d ON d.id = i.document_id
       WHERE i.seq IN (SELECT value FROM json_each(?))`,
    ),
    vectors: database.prepare(
      `SELECT v.seq AS seq, v.vector AS vector FROM memory_vectors v JOIN memory_items i ON i.seq = v.seq
       WHERE v.model = ? AND ((i.kind = 'memory' AND i.scope = ?) OR i.kind = 'knowledge')`,
    ),
  }
  return {
    readRows(seqs) {
      const { found, missing } = cache.find(seqs)
      if (missing.length === 0) return found
      const mark = cache.markRead()
      const read = statements.rows.all(JSON.stringify(missing)) as RankedMemoryRow[]
      cache.keep(mark, read)
      return found.length ? [...found, ...read] : read
    },
    readVectors: ({ model, scope }) => statements.vectors.all(model, scope) as StoredVector[],
  }
}
