/**
 * The in-process keyword index of the SQLite memory store (`createKeywordPartitions` holds the
 * partitions). SQLite stays the source of truth: a partition is built from the stored terms
 * (`memory_terms`) on the first search that needs it, and kept in step with this store's writes, which are
 * applied only once their transaction has committed.
 *
 * Writes by another connection (another process, or a second store on the same file) bump a
 * counter that triggers on `memory_items` keep; a search that sees the counter move without this
 * store having moved it drops every partition, and they are rebuilt on demand.
 */
import type Database from 'better-sqlite3'
import {
  type CreateKeywordPartitionsOptions,
  convertStoredTerms,
  createKeywordPartitions,
  findPartitionKey,
  type IndexedRow,
  type KeywordIndex,
  knowledgePartitionKey,
  type StoredTermColumns,
} from './create-keyword-partitions.js'
import type { RowCache } from './create-row-cache.js'
import { type IndexedFields, MemoryTermIndex } from './memory-term-index.js'

export interface SqliteKeywordIndex extends KeywordIndex {
  findPartitions(scope: string): MemoryTermIndex[]
  /** Inside a write transaction, before anything else. */
  beginWrite(): void
  /** Inside a write transaction, after the row's terms were written. */
  notePut(row: IndexedRow, fields: IndexedFields): void
  /** Inside a write transaction, before the row's terms are deleted. */
  noteRemove(row: IndexedRow): void
  /** Inside a write transaction that deletes every memory of `scope`: drop its partition instead. */
  noteScopeCleared(scope: string): void
  /** Inside a write transaction, after everything else. */
  endWrite(): void
  /** After the transaction committed: applies what was noted. */
  commit(): void
  /** After the transaction failed: forgets what was noted. */
  discard(): void
}

interface PendingChange {
  key: string
  row: IndexedRow
  fields: IndexedFields
  put: boolean
}

interface PendingWrite {
  changes: PendingChange[]
  /** Partitions to drop rather than edit. */
  cleared: Set<string>
  /** Another connection wrote since this store last looked: what is loaded may be stale. */
  foreignWrite: boolean
  writeCountAfter: number
}

function createPendingWrite(writeCount: number): PendingWrite {
  return { changes: [], cleared: new Set(), foreignWrite: false, writeCountAfter: writeCount }
}

export interface CreateSqliteKeywordIndexOptions extends CreateKeywordPartitionsOptions {
  /** Rows the searches read, forgotten with the partitions when another connection wrote. */
  rowCache?: RowCache
}

export function createSqliteKeywordIndex(
  database: Database.Database,
  options: CreateSqliteKeywordIndexOptions = {},
): SqliteKeywordIndex {
  const partitions = createKeywordPartitions(options)
  const statements = {
    writeCount: database.prepare('SELECT value FROM memory_write_count WHERE id = 1').pluck(),
    storedTerms: database.prepare('SELECT speaker, body, context FROM memory_terms WHERE seq = ?'),
    partitionRows: database.prepare(
      `SELECT i.seq, i.time, f.speaker, f.body, f.context
       FROM memory_items i JOIN memory_terms f ON f.seq = i.seq
       WHERE i.kind = ? AND i.scope = ? ORDER BY i.seq`,
    ),
  }
  const readWriteCount = () => statements.writeCount.get() as number
  let seenWriteCount = readWriteCount()
  let pending: PendingWrite = createPendingWrite(seenWriteCount)

  function loadPartition(kind: IndexedRow['kind'], scope: string): MemoryTermIndex {
    const partition = new MemoryTermIndex(kind)
    for (const row of statements.partitionRows.iterate(kind, scope) as Iterable<
      StoredTermColumns & { seq: number; time: number }
    >) {
      partition.put(row.seq, row.time, convertStoredTerms(row))
    }
    return partition
  }

  const findPartitionsInSnapshot = database.transaction((scope: string): MemoryTermIndex[] => {
    const writeCount = readWriteCount()
    if (writeCount !== seenWriteCount) {
      partitions.forgetAll()
      options.rowCache?.forgetAll()
      seenWriteCount = writeCount
    }
    const wanted: [string, IndexedRow['kind'], string][] = [
      [`memory:${scope}`, 'memory', scope],
      [knowledgePartitionKey, 'knowledge', ''],
    ]
    const found = wanted.map(([key, kind, partitionScope]) =>
      partitions.use(key, () => loadPartition(kind, partitionScope)),
    )
    partitions.trim(new Set(wanted.map(([key]) => key)))
    return found
  })

  /** Whether a change to this partition must be noted: it is loaded and stays loaded. */
  function isTracked(key: string): boolean {
    return !pending.foreignWrite && !pending.cleared.has(key) && partitions.peek(key) !== undefined
  }

  return {
    findPartitions(scope) {
      return findPartitionsInSnapshot(scope)
    },
    beginWrite() {
      pending = createPendingWrite(seenWriteCount)
      pending.foreignWrite = readWriteCount() !== seenWriteCount
    },
    notePut(row, fields) {
      const key = findPartitionKey(row)
      if (isTracked(key)) pending.changes.push({ key, row, fields, put: true })
    },
    noteRemove(row) {
      const key = findPartitionKey(row)
      if (!isTracked(key)) return
      const stored = statements.storedTerms.get(row.seq) as StoredTermColumns | undefined
      if (stored) pending.changes.push({ key, row, fields: convertStoredTerms(stored), put: false })
    },
    noteScopeCleared(scope) {
      pending.cleared.add(findPartitionKey({ kind: 'memory', scope }))
    },
    endWrite() {
      pending.writeCountAfter = readWriteCount()
    },
    commit() {
      if (pending.foreignWrite) {
        partitions.forgetAll()
        options.rowCache?.forgetAll()
      }
      for (const key of pending.cleared) partitions.forget(key)
      for (const change of pending.changes)
        partitions.apply(change.key, change.row, change.fields, change.put)
      partitions.compact()
      seenWriteCount = pending.writeCountAfter
      pending = createPendingWrite(seenWriteCount)
    },
    discard() {
      pending = createPendingWrite(seenWriteCount)
    },
    measureSize: () => partitions.measureSize(),
  }
}
