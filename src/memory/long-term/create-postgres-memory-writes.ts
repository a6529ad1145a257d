/**
 * The statements and row writes of the PostgreSQL memory store. Each write of a row also writes
 * its index terms and tells the open partition write what the keyword index must do with it.
 */

import type { Pool, PoolClient } from 'pg'
import type { Logger } from '../../shared/logger.js'
import { runPostgresTransaction } from '../run-postgres-transaction.js'
import type { EmbeddingsClient } from './create-openai-embeddings.js'
import type { MemoryItemRow } from './memory-item-row.js'
import type { IndexedFields } from './memory-term-index.js'
import { openPartitionWrite, type PartitionWrite } from './open-partition-write.js'
import {
  convertPostgresItemRow,
  type PostgresMemoryItemRow,
  postgresItemColumns,
  readStoredTerms,
} from './postgres-memory-item-row.js'
import { encodeVector } from './scan-vectors.js'
import { segmentIndexedFields } from './segment-indexed-fields.js'

/** A row about to be written (its sequence number is the database's to give). */
export type ItemRow = Omit<MemoryItemRow, 'seq'>
/** A row as read back, with its stored index terms. */
export type StoredItem = Omit<PostgresMemoryItemRow, 'seq'> & { seq: number }

export interface CreatePostgresMemoryWritesOptions {
  pool: Pool
  /** The quoted schema name. */
  tables: string
  embeddings?: EmbeddingsClient
  logger: Logger
}

function joinTerms(row: Pick<ItemRow, 'speaker' | 'text' | 'context'>, fields = segmentIndexedFields(row)) {
  return { speaker: fields.speaker.join(' '), body: fields.body.join(' '), context: fields.context.join(' ') }
}

export function createPostgresMemoryWrites(options: CreatePostgresMemoryWritesOptions) {
  const { pool, tables, embeddings, logger } = options
  const itemSelect = `SELECT ${postgresItemColumns} FROM ${tables}.memory_items i`
  const sql = {
    getMemory: `${itemSelect} WHERE i.id = $1 AND i.kind = 'memory'`,
    previousInScope: `${itemSelect} WHERE i.kind = 'memory' AND i.scope = $1 ORDER BY i.seq DESC LIMIT 1`,
    insertItem: `INSERT INTO ${tables}.memory_items (id, kind, scope, text, speaker, time, metadata, source_turn,
        document_id, context, token_count, speaker_terms, body_terms, context_terms, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) RETURNING seq`,
    updateItem: `UPDATE ${tables}.memory_items SET text = $2, speaker = $3, time = $4, metadata = $5,
        context = $6, token_count = $7, speaker_terms = $8, body_terms = $9, context_terms = $10,
        updated_at = COALESCE($11, updated_at)
      WHERE seq = $1`,
    insertVector: `INSERT INTO ${tables}.memory_vectors (seq, model, vector) VALUES ($1, $2, $3)
      ON CONFLICT (seq) DO UPDATE SET model = EXCLUDED.model, vector = EXCLUDED.vector`,
    deleteVector: `DELETE FROM ${tables}.memory_vectors WHERE seq = $1`,
    deleteItem: `DELETE FROM ${tables}.memory_items WHERE seq = $1`,
    deleteScope: `DELETE FROM ${tables}.memory_items WHERE kind = 'memory' AND scope = $1 RETURNING seq, id, text`,
    logChanges: `INSERT INTO ${tables}.memory_changes (memory_id, event, old_text, new_text, time)
      SELECT change.memory_id, $1, change.old_text, change.new_text, $2
      FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS change (memory_id, old_text, new_text, position)
      ORDER BY change.position`,
    history: `SELECT id, memory_id, event, old_text, new_text, time FROM ${tables}.memory_changes
      WHERE memory_id = $1 ORDER BY id`,
    list: `${itemSelect} WHERE i.kind = 'memory' AND ($1::text IS NULL OR i.scope = $1)
      AND ($4::text IS NULL OR i.source_turn = $4)
      AND ($5::text IS NULL OR starts_with(i.scope, $5))
      ORDER BY i.seq DESC LIMIT $2 OFFSET $3`,
    insertDocument: `INSERT INTO ${tables}.knowledge_documents (id, name, chunks, created_at) VALUES ($1, $2, $3, $4)`,
    listDocuments: `SELECT id, name, chunks, created_at FROM ${tables}.knowledge_documents ORDER BY created_at, id`,
    deleteChunks: `DELETE FROM ${tables}.memory_items WHERE document_id = $1
      RETURNING seq, time, speaker_terms, body_terms, context_terms`,
    deleteDocument: `DELETE FROM ${tables}.knowledge_documents WHERE id = $1`,
  }

  async function readMemory(client: Pool | PoolClient, id: string) {
    const result = await client.query<PostgresMemoryItemRow>(sql.getMemory, [id])
    return result.rows[0] && convertPostgresItemRow(result.rows[0])
  }

  async function logChange(
    client: PoolClient,
    event: 'add' | 'update' | 'delete',
    at: number,
    changes: { id: string; oldText: string | null; newText: string | null }[],
  ): Promise<void> {
    await client.query(sql.logChanges, [
      event,
      at,
      changes.map((change) => change.id),
      changes.map((change) => change.oldText),
      changes.map((change) => change.newText),
    ])
  }

  async function insertItem(
    client: PoolClient,
    write: PartitionWrite,
    row: ItemRow,
    vector: Float32Array | undefined,
    at: number,
    /** The row's index terms when already segmented (a knowledge document, in slices). */
    fields?: IndexedFields,
  ): Promise<number> {
    const terms = joinTerms(row, fields)
    const inserted = await client.query<{ seq: string }>(sql.insertItem, [
      row.id,
      row.kind,
      row.scope,
      row.text,
      row.speaker,
      row.time,
      row.metadata,
      row.source_turn,
      row.document_id,
      row.context,
      row.token_count,
      terms.speaker,
      terms.body,
      terms.context,
      at,
    ])
    const seq = Number(inserted.rows[0]!.seq)
    write.put({ seq, time: row.time }, terms)
    if (vector && embeddings)
      await client.query(sql.insertVector, [seq, embeddings.model, encodeVector(vector)])
    return seq
  }

  /**
   * Rewrites a stored row (its index terms with it) and logs the re-index. `at` is the update time;
   * null when only the context changed, which is not an update of the memory itself.
   */
  async function rewriteItem(
    client: PoolClient,
    write: PartitionWrite,
    before: StoredItem,
    next: ItemRow,
    at: number | null,
  ): Promise<void> {
    const terms = joinTerms(next)
    await client.query(sql.updateItem, [
      before.seq,
      next.text,
      next.speaker,
      next.time,
      next.metadata,
      next.context,
      next.token_count,
      terms.speaker,
      terms.body,
      terms.context,
      at,
    ])
    write.remove({ seq: before.seq, time: before.time }, readStoredTerms(before))
    write.put({ seq: before.seq, time: next.time }, terms)
  }

  /**
   * One write of one partition: bump its version, do the work, log what the index must do. With a
   * `deadline` (ms since the epoch) the transaction commits only before it (see
   * runPostgresTransaction): a write whose caller has given up cannot land later.
   */
  function writePartition<Result>(
    kind: MemoryItemRow['kind'],
    scope: string,
    work: (client: PoolClient, write: PartitionWrite) => Promise<Result>,
    deadline?: number,
  ): Promise<Result> {
    const transaction = { logger, doing: 'a memory write', ...(deadline === undefined ? {} : { deadline }) }
    return runPostgresTransaction(pool, transaction, async (client) => {
      const write = await openPartitionWrite(client, { tables, kind, scope })
      const result = await work(client, write)
      await write.finish()
      return result
    })
  }

  return { sql, readMemory, logChange, insertItem, rewriteItem, writePartition }
}
