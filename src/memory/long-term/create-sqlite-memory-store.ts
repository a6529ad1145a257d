/**
 * Long-term memory and the knowledge base in SQLite (better-sqlite3, WAL), in the same database
 * file as the history. Every write is one transaction that also records the change log and keeps
 * the stored terms (`memory_terms`, each row's segmented columns) and the in-process keyword index
 * in step. Vectors, when an
 * embeddings client is given, are computed before the transaction so no lock is held across a
 * network call.
 *
 * Nothing in a write grows with the length of a text past a fixed bound: token counts are the
 * linear estimate (a BPE tokenizer is quadratic in one unbroken run), the indexed text is capped
 * (`segmentText`), and the neighbour context kept for indexing holds at most the indexed length
 * of each neighbour.
 */
import { randomUUID } from 'node:crypto'
import { createSliceQueue } from '../../shared/create-slice-queue.js'
import { BadRequestError } from '../../shared/errors.js'
import { getLogger } from '../../shared/logger.js'
import { joinWalCheckpoints } from '../checkpoint-in-background.js'
import { createPrivateDatabaseFile, restrictDatabaseSideFiles } from '../create-private-database-file.js'
import { openSqliteDatabase } from '../open-sqlite-database.js'
import type { AddMemoryInput, KnowledgeDocument, MemoryRecord, MemoryStore } from '../types.js'
import { applyMemoryPatch, createMemoryItemRow } from './create-memory-item-row.js'
import { createRowCache } from './create-row-cache.js'
import { createSqliteKeywordIndex } from './create-sqlite-keyword-index.js'
import { createSqliteMemoryRows } from './create-sqlite-memory-rows.js'
import { embedQuietly as embedQuietlyWith } from './embed-quietly.js'
import {
  convertRowToChange,
  convertRowToDocument,
  convertRowToRecord,
  type KnowledgeDocumentRow,
  type MemoryChangeRow,
  type MemoryItemRow,
} from './memory-item-row.js'
import { defaultMemoryRanking } from './memory-ranking.js'
import { defaultMaxKnowledgeChars, type MemoryStoreOptions } from './memory-store-options.js'
import type { IndexedFields } from './memory-term-index.js'
import { migrateMemorySchema } from './migrate-memory-schema.js'
import { capContext, joinContext } from './neighbour-context.js'
import { prepareKnowledgeRows, writeInSlices } from './prepare-knowledge-rows.js'
import { encodeVector } from './scan-vectors.js'
import { createMemorySearcher } from './search-memory-items.js'
import { segmentAhead, segmentIndexedFields } from './segment-indexed-fields.js'
import { segmentJoinedText } from './segment-text.js'
import { validateAddInput, validateListOptions, validatePatch } from './validate-memory-input.js'

export interface CreateSqliteMemoryStoreOptions extends MemoryStoreOptions {
  /** Database file (created with its folder when missing), or `:memory:`. */
  path: string
}

/** Rows kept for the searches: a few chats' worth of frequent matches, about a megabyte. */
const rowCacheRows = 2_000

const itemSelect =
  'SELECT seq, id, kind, scope, text, speaker, time, metadata, source_turn, document_id, context, token_count FROM memory_items'

export function createSqliteMemoryStore(options: CreateSqliteMemoryStoreOptions): MemoryStore {
  if (!options?.path) throw new BadRequestError('memory store: path is required')
  createPrivateDatabaseFile(options.path)
  const database = openSqliteDatabase(options.path)
  database.pragma('journal_mode = WAL')
  restrictDatabaseSideFiles(options.path)
  database.pragma('synchronous = NORMAL')
  database.pragma('busy_timeout = 5000')
  migrateMemorySchema(database, { characterIds: options.characterIds })
  const now = options.now ?? Date.now
  const logger = options.logger ?? getLogger('memory')
  const checkpoints = joinWalCheckpoints(options.path, database, { logger })
  const ranking = { ...defaultMemoryRanking, ...options.ranking }
  const neighbourContext = options.neighbourContext ?? true
  const maxKnowledgeChars = options.maxKnowledgeChars ?? defaultMaxKnowledgeChars
  const embeddings = options.embeddings
  // Every write below that changes or deletes a row unindexes it first, which forgets it here.
  const rowCache = createRowCache({ maxRows: rowCacheRows })
  const keywordIndex = createSqliteKeywordIndex(database, {
    rowCache,
    ...(options.keywordIndexMaxBytes === undefined ? {} : { maxBytes: options.keywordIndexMaxBytes }),
  })
  const rows = createSqliteMemoryRows(database, rowCache)
  const searcher = createMemorySearcher({ rows, keywordIndex, ranking, embeddings, now, logger })
  // One queue for every write of this store: slices of all sessions share a turn of the loop.
  const slices = options.slices ?? createSliceQueue()
  let closed = false

  const statements = {
    insertItem: database.prepare(
      `INSERT INTO memory_items (id, kind, scope, text, speaker, time, metadata, source_turn, document_id, context, token_count, created_at, updated_at)
       VALUES (@id, @kind, @scope, @text, @speaker, @time, @metadata, @source_turn, @document_id, @context, @token_count, @now, @now)`,
    ),
    insertTerms: database.prepare(
      'INSERT INTO memory_terms (seq, speaker, body, context) VALUES (?, ?, ?, ?)',
    ),
    deleteTerms: database.prepare('DELETE FROM memory_terms WHERE seq = ?'),
    insertVector: database.prepare(
      'INSERT OR REPLACE INTO memory_vectors (seq, model, vector) VALUES (?, ?, ?)',
    ),
    deleteVector: database.prepare('DELETE FROM memory_vectors WHERE seq = ?'),
    getMemory: database.prepare(`${itemSelect} WHERE id = ? AND kind = 'memory'`),
    previousInScope: database.prepare(
      `${itemSelect} WHERE kind = 'memory' AND scope = ? ORDER BY seq DESC LIMIT 1`,
    ),
    updateContext: database.prepare('UPDATE memory_items SET context = ? WHERE seq = ?'),
    updateItem: database.prepare(
      `UPDATE memory_items SET text = @text, speaker = @speaker, time = @time, metadata = @metadata,
       token_count = @token_count, updated_at = @now WHERE seq = @seq`,
    ),
    deleteItem: database.prepare('DELETE FROM memory_items WHERE seq = ?'),
    logChange: database.prepare(
      'INSERT INTO memory_changes (memory_id, event, old_text, new_text, time) VALUES (?, ?, ?, ?, ?)',
    ),
    history: database.prepare('SELECT * FROM memory_changes WHERE memory_id = ? ORDER BY id'),
    scopeItems: database.prepare(`${itemSelect} WHERE kind = 'memory' AND scope = ?`),
    insertDocument: database.prepare(
      'INSERT INTO knowledge_documents (id, name, chunks, created_at) VALUES (?, ?, ?, ?)',
    ),
    listDocuments: database.prepare('SELECT * FROM knowledge_documents ORDER BY created_at, id'),
    documentChunks: database.prepare(`${itemSelect} WHERE document_id = ?`),
    deleteDocument: database.prepare('DELETE FROM knowledge_documents WHERE id = ?'),
  }

  function assertOpen(): void {
    if (closed) throw new BadRequestError('memory store is closed')
  }

  /** One transaction; the keyword index learns of its changes only once it has committed. */
  function runWrite<Result>(work: () => Result): Result {
    const transaction = database.transaction(() => {
      keywordIndex.beginWrite()
      const result = work()
      keywordIndex.endWrite()
      return result
    })
    let result: Result
    try {
      // IMMEDIATE: take the write lock first, so the index's read of the write count and the
      // writes that follow see one consistent state.
      result = transaction.immediate()
    } catch (error) {
      keywordIndex.discard()
      throw error
    }
    keywordIndex.commit()
    checkpoints.noteWrite()
    return result
  }

  function indexItem(
    row: Omit<MemoryItemRow, 'seq'>,
    seq: number,
    fields: IndexedFields = segmentIndexedFields(row),
  ): void {
    statements.insertTerms.run(seq, fields.speaker.join(' '), fields.body.join(' '), fields.context.join(' '))
    keywordIndex.notePut({ seq, kind: row.kind, scope: row.scope, time: row.time }, fields)
  }

  /** A row's columns are about to change or the row to go: searches must read it again. */
  function unindexItem(row: MemoryItemRow): void {
    rowCache.forget(row.seq)
    keywordIndex.noteRemove(row)
    statements.deleteTerms.run(row.seq)
  }

  function insertItem(
    row: Omit<MemoryItemRow, 'seq'>,
    vector: Float32Array | undefined,
    at: number,
    fields?: IndexedFields,
  ): number {
    const seq = Number(statements.insertItem.run({ ...row, now: at }).lastInsertRowid)
    indexItem(row, seq, fields)
    if (vector && embeddings) statements.insertVector.run(seq, embeddings.model, encodeVector(vector))
    return seq
  }

  function removeItem(row: MemoryItemRow): void {
    unindexItem(row)
    statements.deleteVector.run(row.seq)
    statements.deleteItem.run(row.seq)
  }

  /**
   * What `add` will segment, as the store holds it now: the new memory's text, speaker and context
   * (the previous memory's text), and the previous memory's new context.
   */
  function textsToIndexOnAdd(input: AddMemoryInput): { texts: string[]; joined?: [string, string] } {
    const previous = neighbourContext
      ? (statements.previousInScope.get(input.scope) as MemoryItemRow | undefined)
      : undefined
    const texts = [input.text, input.speaker ?? '']
    if (!previous) return { texts: [...new Set(texts)] }
    texts.push(previous.text, capContext(previous.text))
    // The joined context last: its parts' terms are kept by then, and it is found from them.
    if (!previous.context) texts.push(joinContext(previous.context, input.text))
    return {
      texts: [...new Set(texts)],
      ...(previous.context ? { joined: [capContext(previous.context), capContext(input.text)] } : {}),
    }
  }

  const embedQuietly = (texts: string[]) => embedQuietlyWith(embeddings, texts, logger)

  function removeDocument(id: string): boolean {
    return runWrite(() => {
      const chunks = statements.documentChunks.all(id) as MemoryItemRow[]
      for (const chunk of chunks) removeItem(chunk)
      return statements.deleteDocument.run(id).changes > 0
    })
  }

  return {
    search(query, searchOptions) {
      assertOpen()
      return searcher.search(query, searchOptions)
    },

    async add(input: AddMemoryInput): Promise<MemoryRecord> {
      assertOpen()
      validateAddInput(input)
      const [vector] = await embedQuietly([input.text])
      assertOpen()
      const toIndex = textsToIndexOnAdd(input)
      await segmentAhead(toIndex.texts, slices)
      const joined = toIndex.joined
      if (joined) await slices.run(() => segmentJoinedText(joined[0], joined[1]))
      const id = `mem_${randomUUID()}`
      // The write waits its turn among the other sessions' slices too (up to ms of SQLite and index).
      await slices.run(() => {
        assertOpen()
        const at = now()
        runWrite(() => {
          const previous = neighbourContext
            ? (statements.previousInScope.get(input.scope) as MemoryItemRow | undefined)
            : undefined
          if (previous) {
            // The previous memory learns what followed it: an answer indexes its question and the
            // question its answer, both at the context weight.
            previous.context = joinContext(previous.context, input.text)
            statements.updateContext.run(previous.context, previous.seq)
            unindexItem(previous)
            indexItem(previous, previous.seq)
          }
          insertItem(
            createMemoryItemRow({ id, input, at, context: capContext(previous?.text ?? '') }),
            vector,
            at,
          )
          statements.logChange.run(id, 'add', null, input.text, at)
        })
      })
      return convertRowToRecord(statements.getMemory.get(id) as MemoryItemRow)
    },

    async get(id) {
      assertOpen()
      const row = statements.getMemory.get(String(id)) as MemoryItemRow | undefined
      return row && convertRowToRecord(row)
    },

    async list(listOptions = {}) {
      assertOpen()
      const { limit, offset } = validateListOptions(listOptions)
      const filters: [string, string][] = []
      if (listOptions.scope !== undefined) filters.push([' AND scope = ?', listOptions.scope])
      if (listOptions.sourceTurn !== undefined) filters.push([' AND source_turn = ?', listOptions.sourceTurn])
      // instr compares characters exactly, where LIKE would read % and _ in the prefix.
      if (listOptions.scopePrefix !== undefined)
        filters.push([' AND instr(scope, ?) = 1', listOptions.scopePrefix])
      const rows = database
        .prepare(
          `${itemSelect} WHERE kind = 'memory'${filters.map(([clause]) => clause).join('')} ORDER BY seq DESC LIMIT ? OFFSET ?`,
        )
        .all(...filters.map(([, value]) => value), limit, offset) as MemoryItemRow[]
      return rows.map(convertRowToRecord)
    },

    async update(id, patch) {
      assertOpen()
      validatePatch(patch)
      const existing = statements.getMemory.get(String(id)) as MemoryItemRow | undefined
      if (!existing) return undefined
      const textChanged = patch.text !== undefined && patch.text !== existing.text
      const [vector] = textChanged ? await embedQuietly([patch.text as string]) : [undefined]
      assertOpen()
      const at = now()
      const updated = runWrite(() => {
        const row = statements.getMemory.get(String(id)) as MemoryItemRow | undefined
        if (!row) return undefined
        const next = applyMemoryPatch(row, patch)
        statements.updateItem.run({ ...next, now: at })
        unindexItem(row)
        indexItem(next, row.seq)
        if (textChanged) {
          statements.deleteVector.run(row.seq)
          if (vector && embeddings)
            statements.insertVector.run(row.seq, embeddings.model, encodeVector(vector))
        }
        statements.logChange.run(row.id, 'update', row.text, next.text, at)
        return next
      })
      return updated && convertRowToRecord(updated)
    },

    async delete(id) {
      assertOpen()
      const at = now()
      const deleted = runWrite(() => {
        const row = statements.getMemory.get(String(id)) as MemoryItemRow | undefined
        if (!row) return false
        removeItem(row)
        statements.logChange.run(row.id, 'delete', row.text, null, at)
        return true
      })
      return deleted
    },

    async deleteAll(scope) {
      assertOpen()
      if (typeof scope !== 'string') throw new BadRequestError('memory deleteAll: scope must be a string')
      const at = now()
      const count = runWrite(() => {
        const rows = statements.scopeItems.all(scope) as MemoryItemRow[]
        keywordIndex.noteScopeCleared(scope)
        for (const row of rows) {
          removeItem(row)
          statements.logChange.run(row.id, 'delete', row.text, null, at)
        }
        return rows.length
      })
      return count
    },

    async history(id) {
      assertOpen()
      const rows = statements.history.all(String(id)) as MemoryChangeRow[]
      return rows.map(convertRowToChange)
    },

    async addKnowledge(document) {
      assertOpen()
      const at = now()
      // Chunked, segmented and written in slices: a document of megabytes never holds the event
      // loop for long. Its entry goes first, so a write cut short leaves a document one can remove.
      const { id, rows: prepared } = await prepareKnowledgeRows({ document, at, maxChars: maxKnowledgeChars })
      const vectors = await embedQuietly(prepared.map((item) => item.row.text))
      assertOpen()
      runWrite(() => statements.insertDocument.run(id, document.name, prepared.length, at))
      try {
        const items = prepared.map((item, index) => ({ ...item, vector: vectors[index] }))
        await writeInSlices(items, (batch) => {
          assertOpen()
          runWrite(() => {
            for (const item of batch) insertItem(item.row, item.vector, at, item.fields)
          })
        })
      } catch (error) {
        if (!closed) removeDocument(id)
        throw error
      }
      return { id, name: document.name, chunks: prepared.length, createdAt: at }
    },

    async listKnowledge(): Promise<KnowledgeDocument[]> {
      assertOpen()
      const rows = statements.listDocuments.all() as KnowledgeDocumentRow[]
      return rows.map(convertRowToDocument)
    },

    async removeKnowledge(id) {
      assertOpen()
      return removeDocument(String(id))
    },

    async close() {
      if (closed) return
      closed = true
      await checkpoints.releaseAfterCheckpoint()
      database.close()
    },
  }
}
