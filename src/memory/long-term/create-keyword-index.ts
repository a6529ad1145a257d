/**
 * The in-process keyword index of a memory store: one `MemoryTermIndex` per scope searched so far,
 * plus one for the knowledge chunks. SQLite stays the source of truth: a partition is built from
 * the FTS table's stored terms on the first search that needs it, and kept in step with this
 * store's writes, which are applied only once their transaction has committed.
 *
 * Writes by another connection (another process, or a second store on the same file) bump a
 * counter that triggers on `memory_items` keep; a search that sees the counter move without this
 * store having moved it drops every partition, and they are rebuilt on demand.
 *
 * The loaded partitions are bounded by `maxBytes` (estimated): past it the least recently searched
 * are dropped, to be rebuilt from SQLite by the next search that needs them, so a server with many
 * users keeps only the scopes in use, not one per user it ever saw.
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

export interface CreateKeywordIndexOptions {
  /** Estimated bytes of loaded partitions kept; past it the least recently searched go. @default 64 MiB */
  maxBytes?: number
}

export const defaultKeywordIndexMaxBytes = 64 * 1024 * 1024

/** Estimated bytes a document's terms add to a partition (postings, counts, slot bookkeeping). */
function estimateDocumentBytes(fields: IndexedFields): number {
  return 64 + 24 * (fields.speaker.length + fields.body.length + fields.context.length)
}

export function createKeywordIndex(
  database: Database.Database,
  options: CreateKeywordIndexOptions = {},
): KeywordIndex {
  const maxBytes = options.maxBytes ?? defaultKeywordIndexMaxBytes
  // In least recently used order: a search moves its partitions to the end.
  const partitions = new Map<string, MemoryTermIndex>()
  const partitionBytes = new Map<string, number>()
  let loadedBytes = 0

  function forgetPartition(key: string): void {
    loadedBytes -= partitionBytes.get(key) ?? 0
    partitionBytes.delete(key)
    partitions.delete(key)
  }

  function forgetAllPartitions(): void {
    partitions.clear()
    partitionBytes.clear()
    loadedBytes = 0
  }

  function addBytes(key: string, bytes: number): void {
    partitionBytes.set(key, (partitionBytes.get(key) ?? 0) + bytes)
    loadedBytes += bytes
  }

  /** Drops the least recently searched partitions past `maxBytes`, never those of `keep`. */
  function evictPast(keep: ReadonlySet<string>): void {
    for (const key of partitions.keys()) {
      if (loadedBytes <= maxBytes) return
      if (!keep.has(key)) forgetPartition(key)
    }
  }
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
      forgetAllPartitions()
      seenWriteCount = writeCount
    }
    const wanted: [string, IndexedRow['kind'], string][] = [
      [`memory:${scope}`, 'memory', scope],
      [knowledgeKey, 'knowledge', ''],
    ]
    const found = wanted.map(([key, kind, partitionScope]) => {
      let partition = partitions.get(key)
      if (partition) {
        partitions.delete(key)
      } else {
        partition = loadPartition(kind, partitionScope)
        addBytes(key, partition.measureBytes())
      }
      partitions.set(key, partition)
      return partition
    })
    evictPast(new Set(wanted.map(([key]) => key)))
    return found
  })

  /** Whether a change to this partition must be noted: it is loaded and stays loaded. */
  function isTracked(key: string): boolean {
    return !pending.foreignWrite && !pending.cleared.has(key) && partitions.has(key)
  }

  function applyChange(change: PendingChange): void {
    const partition = partitions.get(change.key)
    if (!partition) return
    const bytes = estimateDocumentBytes(change.fields)
    if (change.put) partition.put(change.row.seq, change.row.time, change.fields)
    else partition.remove(change.row.seq, change.fields)
    addBytes(change.key, change.put ? bytes : -bytes)
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
      if (pending.foreignWrite) forgetAllPartitions()
      for (const key of pending.cleared) forgetPartition(key)
      for (const change of pending.changes) applyChange(change)
      for (const [key, partition] of partitions) {
        // Deleted documents leave empty slots; past a point a rebuild is cheaper to carry.
        if (partition.emptySlots > Math.max(1024, partition.documentCount)) forgetPartition(key)
      }
      evictPast(new Set())
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
