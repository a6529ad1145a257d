/**
 * The in-process keyword index of a memory store: one `MemoryTermIndex` per scope searched so far,
 * plus one for the knowledge chunks. SQLite stays the source of truth: a partition is built from
 * the FTS table's stored terms on the first search that needs it, and kept in step with this
 * store's writes, which are applied only once their transaction has committed.
 *
 * Writes by another connection (another process, or a second store on the same file) bump a
 * counter that triggers on `memory_items` keep; a search that sees the counter move without this
 * store having moved it drops every partition, and they are rebuilt on demand.
 */
import type Database from 'better-sqlite3'
import { type IndexedFields, MemoryTermIndex } from './memory-term-index.js'

/** What the index needs to know of a stored row. */
export interface IndexedRow {
  seq: number
  kind: 'memory' | 'knowledge'
  scope: string
  time: number
}

export interface KeywordIndexSize {
  partitions: number
  documents: number
  postings: number
  bytes: number
}

export interface KeywordIndex {
  /** The partitions a search of `scope` ranks together: its memories, then the knowledge chunks. */
  findPartitions(scope: string): MemoryTermIndex[]
  /** Inside a write transaction, before anything else. */
  beginWrite(): void
  /** Inside a write transaction, after the row was written to the FTS table. */
  notePut(row: IndexedRow, fields: IndexedFields): void
  /** Inside a write transaction, before the row's FTS entry is deleted. */
  noteRemove(row: IndexedRow): void
  /** Inside a write transaction that deletes every memory of `scope`: drop its partition instead. */
  noteScopeCleared(scope: string): void
  /** Inside a write transaction, after everything else. */
  endWrite(): void
  /** After the transaction committed: applies what was noted. */
  commit(): void
  /** After the transaction failed: forgets what was noted. */
  discard(): void
  measureSize(): KeywordIndexSize
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

interface FtsFields {
  speaker: string
  body: string
  context: string
}

const knowledgeKey = 'knowledge'

function findPartitionKey(row: Pick<IndexedRow, 'kind' | 'scope'>): string {
  return row.kind === 'knowledge' ? knowledgeKey : `memory:${row.scope}`
}

function splitTerms(column: string | null): string[] {
  return column ? column.split(' ') : []
}

function convertFtsFields(row: FtsFields): IndexedFields {
  return { speaker: splitTerms(row.speaker), body: splitTerms(row.body), context: splitTerms(row.context) }
}

function createPendingWrite(writeCount: number): PendingWrite {
  return { changes: [], cleared: new Set(), foreignWrite: false, writeCountAfter: writeCount }
}

export function createKeywordIndex(database: Database.Database): KeywordIndex {
  const partitions = new Map<string, MemoryTermIndex>()
  const statements = {
    writeCount: database.prepare('SELECT value FROM memory_write_count WHERE id = 1').pluck(),
    ftsRow: database.prepare('SELECT speaker, body, context FROM memory_fts WHERE rowid = ?'),
    partitionRows: database.prepare(
      `SELECT i.seq, i.time, f.speaker, f.body, f.context
       FROM memory_items i JOIN memory_fts f ON f.rowid = i.seq
       WHERE i.kind = ? AND i.scope = ? ORDER BY i.seq`,
    ),
  }
  const readWriteCount = () => statements.writeCount.get() as number
  let seenWriteCount = readWriteCount()
  let pending: PendingWrite = createPendingWrite(seenWriteCount)

  function loadPartition(kind: IndexedRow['kind'], scope: string): MemoryTermIndex {
    const partition = new MemoryTermIndex(kind)
    for (const row of statements.partitionRows.iterate(kind, scope) as Iterable<
      FtsFields & { seq: number; time: number }
    >) {
      partition.put(row.seq, row.time, convertFtsFields(row))
    }
    return partition
  }

  const findPartitionsInSnapshot = database.transaction((scope: string): MemoryTermIndex[] => {
    const writeCount = readWriteCount()
    if (writeCount !== seenWriteCount) {
      partitions.clear()
      seenWriteCount = writeCount
    }
    const wanted: [string, IndexedRow['kind'], string][] = [
      [`memory:${scope}`, 'memory', scope],
      [knowledgeKey, 'knowledge', ''],
    ]
    return wanted.map(([key, kind, partitionScope]) => {
      let partition = partitions.get(key)
      if (!partition) {
        partition = loadPartition(kind, partitionScope)
        partitions.set(key, partition)
      }
      return partition
    })
  })

  /** Whether a change to this partition must be noted: it is loaded and stays loaded. */
  function isTracked(key: string): boolean {
    return !pending.foreignWrite && !pending.cleared.has(key) && partitions.has(key)
  }

  function applyChange(change: PendingChange): void {
    const partition = partitions.get(change.key)
    if (!partition) return
    if (change.put) partition.put(change.row.seq, change.row.time, change.fields)
    else partition.remove(change.row.seq, change.fields)
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
      const stored = statements.ftsRow.get(row.seq) as FtsFields | undefined
      if (stored) pending.changes.push({ key, row, fields: convertFtsFields(stored), put: false })
    },
    noteScopeCleared(scope) {
      pending.cleared.add(findPartitionKey({ kind: 'memory', scope }))
    },
    endWrite() {
      pending.writeCountAfter = readWriteCount()
    },
    commit() {
      if (pending.foreignWrite) partitions.clear()
      for (const key of pending.cleared) partitions.delete(key)
      for (const change of pending.changes) applyChange(change)
      for (const [key, partition] of partitions) {
        // Deleted documents leave empty slots; past a point a rebuild is cheaper to carry.
        if (partition.emptySlots > Math.max(1024, partition.documentCount)) partitions.delete(key)
      }
      seenWriteCount = pending.writeCountAfter
      pending = createPendingWrite(seenWriteCount)
    },
    discard() {
      pending = createPendingWrite(seenWriteCount)
    },
    measureSize() {
      const size: KeywordIndexSize = { partitions: partitions.size, documents: 0, postings: 0, bytes: 0 }
      for (const partition of partitions.values()) {
        size.documents += partition.documentCount
        size.bytes += partition.measureBytes()
        for (const postings of partition.terms.values()) size.postings += postings.size
      }
      return size
    },
  }
}
