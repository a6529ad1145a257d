/**
 * Long-term memory and the knowledge base in PostgreSQL, for several servers sharing one store
 * (`memory.store: postgres`). The tables, the writes and the search are those of the SQLite store:
 * the same rows, the same index terms per row, the same neighbour context, and the same searcher
 * over the same in-process keyword index (`createPostgresKeywordIndex` keeps it in step with every
 * server's writes), so both stores rank the same data alike.
 *
 * Every write is one transaction that first bumps the version of the partition it writes (a
 * scope's memories, or the knowledge chunks): writers of one scope take turns across servers, so
 * "the memory before" a new one is the same on every server, and the index log it writes is read
 * in order. Vectors are computed before the transaction, so no lock is held across a network call.
 * PostgreSQL cannot store a NUL character in text; input that holds one is refused.
 */
import { randomUUID } from 'node:crypto'
import type { Pool } from 'pg'
import { BadRequestError } from '../../shared/errors.js'
import { getLogger } from '../../shared/logger.js'
import { quoteIdentifier } from '../history/postgres-migrations.js'
import { openPostgresStore } from '../open-postgres-store.js'
import type { AddMemoryInput, KnowledgeDocument, MemoryStore } from '../types.js'
import { applyMemoryPatch, createMemoryItemRow } from './create-memory-item-row.js'
import { createPostgresKeywordIndex } from './create-postgres-keyword-index.js'
import { createPostgresMemoryRows } from './create-postgres-memory-rows.js'
import { createPostgresMemoryWrites } from './create-postgres-memory-writes.js'
import { createRowCache } from './create-row-cache.js'
import { embedQuietly } from './embed-quietly.js'
import {
  convertRowToChange,
  convertRowToDocument,
  convertRowToRecord,
  type KnowledgeDocumentRow,
  knowledgeScope,
  type MemoryChangeRow,
} from './memory-item-row.js'
import { defaultMemoryRanking } from './memory-ranking.js'
import { defaultMaxKnowledgeChars, type MemoryStoreOptions } from './memory-store-options.js'
import { capContext, joinContext } from './neighbour-context.js'
import {
  convertPostgresItemRow,
  type PostgresMemoryItemRow,
  readStoredTerms,
} from './postgres-memory-item-row.js'
import { applyPostgresMemoryMigrations } from './postgres-memory-migrations.js'
import { prepareKnowledgeRows } from './prepare-knowledge-rows.js'
import { maxMemoriesOfTurn } from './remember-turn.js'
import { encodeVector } from './scan-vectors.js'
import { createMemorySearcher } from './search-memory-items.js'
import { validateAddInput, validateListOptions, validatePatch } from './validate-memory-input.js'

export interface CreatePostgresMemoryStoreOptions extends MemoryStoreOptions {
  /** `postgres://user:password@host:port/database`. Either this or `pool`. */
  url?: string
  /** A pg Pool the caller owns (and ends). */
  pool?: Pool
  /** The schema that holds the tables; created when missing. @default 'public' */
  schema?: string
  /** Longest wait for a connection or one query, in milliseconds (with `url`). @default 1000 */
  timeoutMs?: number
}

function refuseNul(action: string, values: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.includes('\u0000'))
      throw new BadRequestError(`${action}: ${field} holds a NUL character, which PostgreSQL cannot store`)
  }
}

/** Rows kept for the next searches (a row is a memory of at most 64 KiB; most are one line). */
const rowCacheRows = 10_000

/** Creates a PostgreSQL memory store; connects and migrates before it resolves. */
export async function createPostgresMemoryStore(
  options: CreatePostgresMemoryStoreOptions,
): Promise<MemoryStore> {
  const logger = options.logger ?? getLogger('memory')
  const { pool, ownsPool, schema } = await openPostgresStore({
    ...options,
    logger,
    factoryName: 'createPostgresMemoryStore',
    holds: 'memory',
    neededFor: 'memory.store: postgres',
    migrate: (pool, schema, migrationLogger) =>
      applyPostgresMemoryMigrations(pool, schema, migrationLogger, { characterIds: options.characterIds }),
  })
  const tables = quoteIdentifier(schema)
  const now = options.now ?? Date.now
  const ranking = { ...defaultMemoryRanking, ...options.ranking }
  const neighbourContext = options.neighbourContext ?? true
  const maxKnowledgeChars = options.maxKnowledgeChars ?? defaultMaxKnowledgeChars
  const embeddings = options.embeddings
  const rowCache = createRowCache({ maxRows: rowCacheRows })
  const keywordIndex = createPostgresKeywordIndex({
    pool,
    tables,
    logger,
    rowCache,
    ...(options.keywordIndexMaxBytes === undefined ? {} : { maxBytes: options.keywordIndexMaxBytes }),
  })
  const rows = createPostgresMemoryRows(pool, tables, rowCache)
  const searcher = createMemorySearcher({ rows, keywordIndex, ranking, embeddings, now, logger })
  const { sql, readMemory, logChange, insertItem, rewriteItem, writePartition } = createPostgresMemoryWrites({
    pool,
    tables,
    embeddings,
    logger,
  })
  let closed = false

  function assertOpen(): void {
    if (closed) throw new BadRequestError('memory store is closed')
  }

  return {
    search(query, searchOptions) {
      assertOpen()
      return searcher.search(query, searchOptions)
    },

    async add(input: AddMemoryInput) {
      const startedAt = Date.now()
      assertOpen()
      validateAddInput(input)
      refuseNul('memory add', { scope: input.scope, text: input.text, speaker: input.speaker })
      refuseNul('memory add', { sourceTurn: input.sourceTurn })
      const [vector] = await embedQuietly(embeddings, [input.text], logger)
      assertOpen()
      // The caller's deadline counts from the call, with the embedding's time on top
      // (memory-store-factory.ts): a memory never lands after its caller has given up on it.
      const embeddedMs = embeddings ? Date.now() - startedAt : 0
      const deadline =
        options.timeoutMs === undefined ? undefined : startedAt + embeddedMs + options.timeoutMs
      const at = now()
      const row = createMemoryItemRow({ id: `mem_${randomUUID()}`, input, at, context: '' })
      await writePartition(
        'memory',
        input.scope,
        async (client, write) => {
          const found = neighbourContext
            ? await client.query<PostgresMemoryItemRow>(sql.previousInScope, [input.scope])
            : undefined
          const previous = found?.rows[0] && convertPostgresItemRow(found.rows[0])
          if (previous) {
            // The previous memory learns what followed it: an answer indexes its question and the
            // question its answer, both at the context weight.
            const context = joinContext(previous.context, input.text)
            await rewriteItem(client, write, previous, { ...previous, context }, null)
            row.context = capContext(previous.text)
          }
          await insertItem(client, write, row, vector, at)
          await logChange(client, 'add', at, [{ id: row.id, oldText: null, newText: input.text }])
        },
        deadline,
      )
      return convertRowToRecord({ ...row, seq: 0 })
    },

    async get(id) {
      assertOpen()
      const row = await readMemory(pool, String(id))
      return row && convertRowToRecord(row)
    },

    async list(listOptions = {}) {
      assertOpen()
      const { limit, offset } = validateListOptions(listOptions)
      const result = await pool.query<PostgresMemoryItemRow>(sql.list, [
        listOptions.scope ?? null,
        limit,
        offset,
        listOptions.sourceTurn ?? null,
        listOptions.scopePrefix ?? null,
      ])
      return result.rows.map((row) => convertRowToRecord(convertPostgresItemRow(row)))
    },

    async update(id, patch) {
      assertOpen()
      validatePatch(patch)
      refuseNul('memory update', { text: patch.text, speaker: patch.speaker })
      const existing = await readMemory(pool, String(id))
      if (!existing) return undefined
      const textChanged = patch.text !== undefined && patch.text !== existing.text
      const [vector] = textChanged
        ? await embedQuietly(embeddings, [patch.text as string], logger)
        : [undefined]
      assertOpen()
      const at = now()
      const updated = await writePartition('memory', existing.scope, async (client, write) => {
        const row = await readMemory(client, String(id))
        if (!row) return undefined
        const next = applyMemoryPatch(row, patch)
        await rewriteItem(client, write, row, next, at)
        if (textChanged) {
          await client.query(sql.deleteVector, [row.seq])
          if (vector && embeddings)
            await client.query(sql.insertVector, [row.seq, embeddings.model, encodeVector(vector)])
        }
        await logChange(client, 'update', at, [{ id: row.id, oldText: row.text, newText: next.text }])
        return next
      })
      return updated && convertRowToRecord({ ...updated, seq: 0 })
    },

    async delete(id) {
      assertOpen()
      const existing = await readMemory(pool, String(id))
      if (!existing) return false
      const at = now()
      return writePartition('memory', existing.scope, async (client, write) => {
        const row = await readMemory(client, String(id))
        if (!row) return false
        // The vector goes with the row (ON DELETE CASCADE).
        await client.query(sql.deleteItem, [row.seq])
        write.remove({ seq: row.seq, time: row.time }, readStoredTerms(row))
        await logChange(client, 'delete', at, [{ id: row.id, oldText: row.text, newText: null }])
        return true
      })
    },

    async forgetTurn(scope, turn) {
      assertOpen()
      if (typeof scope !== 'string' || typeof turn !== 'string')
        throw new BadRequestError('memory forgetTurn: scope and turn must be strings')
      refuseNul('memory forgetTurn', { scope, turn })
      const at = now()
      // Under the partition's lock, which a memory write of the scope holds until it commits: one
      // still under way has committed or rolled back before the memories of the turn are read.
      return writePartition('memory', scope, async (client, write) => {
        const found = await client.query<PostgresMemoryItemRow>(sql.list, [
          scope,
          maxMemoriesOfTurn,
          0,
          turn,
          null,
        ])
        const rows = found.rows.map(convertPostgresItemRow).sort((left, right) => left.seq - right.seq)
        for (const row of rows) {
          // The vector goes with the row (ON DELETE CASCADE).
          await client.query(sql.deleteItem, [row.seq])
          write.remove({ seq: row.seq, time: row.time }, readStoredTerms(row))
        }
        const changes = rows.map((row) => ({ id: row.id, oldText: row.text, newText: null }))
        if (changes.length) await logChange(client, 'delete', at, changes)
        return rows.map((row) => row.id)
      })
    },

    async deleteAll(scope) {
      assertOpen()
      if (typeof scope !== 'string') throw new BadRequestError('memory deleteAll: scope must be a string')
      refuseNul('memory deleteAll', { scope })
      const at = now()
      return writePartition('memory', scope, async (client, write) => {
        const deleted = await client.query<{ seq: string; id: string; text: string }>(sql.deleteScope, [
          scope,
        ])
        write.clear()
        const removed = deleted.rows.sort((left, right) => Number(left.seq) - Number(right.seq))
        const changes = removed.map((row) => ({ id: row.id, oldText: row.text, newText: null }))
        if (changes.length) await logChange(client, 'delete', at, changes)
        return changes.length
      })
    },

    async history(id) {
      assertOpen()
      const result = await pool.query<MemoryChangeRow>(sql.history, [String(id)])
      return result.rows.map(convertRowToChange)
    },

    async addKnowledge(document) {
      assertOpen()
      refuseNul('knowledge', { name: document?.name, text: document?.text })
      const at = now()
      // Chunked and segmented in slices (the event loop free between them); the writes await the
      // database row by row, so they hold the loop no longer than one row each.
      const { id, rows: prepared } = await prepareKnowledgeRows({ document, at, maxChars: maxKnowledgeChars })
      const vectors = await embedQuietly(
        embeddings,
        prepared.map((item) => item.row.text),
        logger,
      )
      assertOpen()
      await writePartition('knowledge', knowledgeScope, async (client, write) => {
        await client.query(sql.insertDocument, [id, document.name, prepared.length, at])
        for (const [index, item] of prepared.entries())
          await insertItem(client, write, item.row, vectors[index], at, item.fields)
      })
      return { id, name: document.name, chunks: prepared.length, createdAt: at }
    },

    async listKnowledge(): Promise<KnowledgeDocument[]> {
      assertOpen()
      const result = await pool.query<KnowledgeDocumentRow>(sql.listDocuments)
      return result.rows.map(convertRowToDocument)
    },

    async removeKnowledge(id) {
      assertOpen()
      return writePartition('knowledge', knowledgeScope, async (client, write) => {
        const chunks = await client.query<PostgresMemoryItemRow>(sql.deleteChunks, [String(id)])
        for (const chunk of chunks.rows)
          write.remove({ seq: Number(chunk.seq), time: chunk.time }, readStoredTerms(chunk))
        const removed = await client.query(sql.deleteDocument, [String(id)])
        return (removed.rowCount ?? 0) > 0
      })
    },

    async close() {
      if (closed) return
      closed = true
      if (ownsPool && !pool.ended) await pool.end()
    },
  }
}
