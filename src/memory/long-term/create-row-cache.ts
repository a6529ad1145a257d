/**
 * Rows a PostgreSQL search read lately, so the next searches of a scope need no round trip for the
 * rows they share (the best matches of common words come back query after query). A row is dropped
 * as soon as the keyword index applies a logged change to it, and every row when a partition is
 * cleared or reloaded, so a cached row is never older than what the index ranks. A read that was
 * under way while something was dropped is not cached: it may predate the change.
 */
import type { RankedMemoryRow } from './memory-row-source.js'

export interface RowCache {
  /** The cached rows among `seqs`, and the seqs still to read. */
  find(seqs: readonly number[]): { found: RankedMemoryRow[]; missing: number[] }
  /** Marks the start of a read; pass the mark to `keep`. */
  markRead(): number
  /** Caches rows read since `mark`, unless something was dropped meanwhile. */
  keep(mark: number, rows: readonly RankedMemoryRow[]): void
  forget(seq: number): void
  forgetAll(): void
}

export function createRowCache(options: { maxRows: number }): RowCache {
  // In least recently used order.
  const rows = new Map<number, RankedMemoryRow>()
  let drops = 0
  return {
    find(seqs) {
      const found: RankedMemoryRow[] = []
      const missing: number[] = []
      for (const seq of seqs) {
        const row = rows.get(seq)
        if (!row) {
          missing.push(seq)
          continue
        }
        rows.delete(seq)
        rows.set(seq, row)
        found.push(row)
      }
      return { found, missing }
    },
    markRead: () => drops,
    keep(mark, read) {
      if (mark !== drops) return
      for (const row of read) rows.set(row.seq, row)
      for (const seq of rows.keys()) {
        if (rows.size <= options.maxRows) break
        rows.delete(seq)
      }
    },
    forget(seq) {
      drops++
      rows.delete(seq)
    },
    forgetAll() {
      drops++
      rows.clear()
    },
  }
}
