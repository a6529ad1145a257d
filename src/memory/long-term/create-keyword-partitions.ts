/**
 * The loaded partitions of an in-process keyword index, whatever store they are loaded from: one
 * `MemoryTermIndex` per scope searched so far plus one for the knowledge chunks, in least recently
 * searched order, with their estimated size. Past `maxBytes` the least recently searched go, to be
 * loaded again by the next search that needs them, so a server with many users keeps only the
 * scopes in use. How a partition is loaded and how it learns of writes is the store's business
 * (`createSqliteKeywordIndex`, `createPostgresKeywordIndex`); what is loaded, and so how it ranks,
 * is the same for every store.
 */
import type { IndexedFields, MemoryTermIndex } from './memory-term-index.js'

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

/** What a search needs of a keyword index, whichever store keeps it fresh. */
export interface KeywordIndex {
  /** The partitions a search of `scope` ranks together: its memories, then the knowledge chunks. */
  findPartitions(scope: string): MemoryTermIndex[] | Promise<MemoryTermIndex[]>
  measureSize(): KeywordIndexSize
}

/** The stored terms of one row, each column space-separated (as segmented at write time). */
export interface StoredTermColumns {
  speaker: string | null
  body: string | null
  context: string | null
}

export interface KeywordPartitions {
  /** A loaded partition, without marking it as searched. */
  peek(key: string): MemoryTermIndex | undefined
  /** The partition of `key`, loaded with `load` when missing, marked as the most recently searched. */
  use(key: string, load: () => MemoryTermIndex): MemoryTermIndex
  /** Replaces a partition (a fresh load) and marks it as the most recently searched. */
  replace(key: string, partition: MemoryTermIndex): void
  forget(key: string): void
  forgetAll(): void
  /** Applies a write to a loaded partition (nothing when it is not loaded). */
  apply(key: string, row: IndexedRow, fields: IndexedFields, put: boolean): void
  /** Drops the least recently searched partitions past `maxBytes`, never those of `keep`. */
  trim(keep: ReadonlySet<string>): void
  /** Forgets partitions whose deleted documents left too many empty slots, then trims to `maxBytes`. */
  compact(): void
  measureSize(): KeywordIndexSize
}

export interface CreateKeywordPartitionsOptions {
  /** Estimated bytes of loaded partitions kept; past it the least recently searched go. @default 64 MiB */
  maxBytes?: number
  /**
   * Told of each partition dropped to stay within `maxBytes` or by `compact`, so a store that keeps
   * something per loaded partition lets it go too (else the dropped partition stays in memory).
   */
  onDrop?: (key: string) => void
}

const defaultKeywordIndexMaxBytes = 64 * 1024 * 1024

export const knowledgePartitionKey = 'knowledge'

/** The partition a row belongs to. */
export function findPartitionKey(row: Pick<IndexedRow, 'kind' | 'scope'>): string {
  return row.kind === 'knowledge' ? knowledgePartitionKey : `memory:${row.scope}`
}

function splitTerms(column: string | null): string[] {
  return column ? column.split(' ') : []
}

/** Stored term columns back to the fields a partition indexes. */
export function convertStoredTerms(row: StoredTermColumns): IndexedFields {
  return { speaker: splitTerms(row.speaker), body: splitTerms(row.body), context: splitTerms(row.context) }
}

export function createKeywordPartitions(options: CreateKeywordPartitionsOptions = {}): KeywordPartitions {
  const maxBytes = options.maxBytes ?? defaultKeywordIndexMaxBytes
  // In least recently used order: a search moves its partitions to the end.
  const partitions = new Map<string, MemoryTermIndex>()
  const partitionBytes = new Map<string, number>()
  let loadedBytes = 0

  function forget(key: string): void {
    loadedBytes -= partitionBytes.get(key) ?? 0
    partitionBytes.delete(key)
    partitions.delete(key)
  }

  /** Forgets a partition the store did not ask to forget, and tells the store. */
  function drop(key: string): void {
    forget(key)
    options.onDrop?.(key)
  }

  function addBytes(key: string, bytes: number): void {
    partitionBytes.set(key, (partitionBytes.get(key) ?? 0) + bytes)
    loadedBytes += bytes
  }

  function trim(keep: ReadonlySet<string>): void {
    for (const key of partitions.keys()) {
      if (loadedBytes <= maxBytes) return
      if (!keep.has(key)) drop(key)
    }
  }

  function replace(key: string, partition: MemoryTermIndex): void {
    forget(key)
    partitions.set(key, partition)
    addBytes(key, partition.measureBytes())
  }

  return {
    peek: (key) => partitions.get(key),
    use(key, load) {
      const partition = partitions.get(key)
      if (!partition) {
        const loaded = load()
        replace(key, loaded)
        return loaded
      }
      partitions.delete(key)
      partitions.set(key, partition)
      return partition
    },
    replace,
    forget,
    forgetAll() {
      partitions.clear()
      partitionBytes.clear()
      loadedBytes = 0
    },
    apply(key, row, fields, put) {
      const partition = partitions.get(key)
      if (!partition) return
      const before = partition.measureBytes()
      if (put) partition.put(row.seq, row.time, fields)
      else partition.remove(row.seq, fields)
      // What the write really added: a new scope's partition grows by deltas alone.
      addBytes(key, partition.measureBytes() - before)
    },
    trim,
    compact() {
      for (const [key, partition] of partitions) {
        // Deleted documents leave empty slots; past a point a rebuild is cheaper to carry.
        if (partition.emptySlots > Math.max(1024, partition.documentCount)) drop(key)
      }
      trim(new Set())
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
