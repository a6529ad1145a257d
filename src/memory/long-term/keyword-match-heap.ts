/** The best `capacity` keyword matches seen so far, worst on top. */
import type { MemoryTermIndex } from './memory-term-index.js'

export interface KeywordMatch {
  partition: MemoryTermIndex
  slot: number
  seq: number
  relevance: number
  /** Whether the document has a query term among its own words or speaker, not only in its context. */
  direct: boolean
}

/** A min-heap; between equal scores the older document ranks higher, as FTS5's order had it. */
export class KeywordMatchHeap {
  readonly items: KeywordMatch[] = []

  constructor(readonly capacity: number) {}

  offer(partition: MemoryTermIndex, slot: number, seq: number, relevance: number, direct = true): void {
    const items = this.items
    if (items.length < this.capacity) {
      items.push({ partition, slot, seq, relevance, direct })
      this.siftUp(items.length - 1)
      return
    }
    const worst = items[0] as KeywordMatch
    if (!isBetter(relevance, seq, worst)) return
    items[0] = { partition, slot, seq, relevance, direct }
    this.siftDown(0)
  }

  get size(): number {
    return this.items.length
  }

  /** The score a match must beat to get in once the heap is full (0 until then). */
  get worstRelevance(): number {
    return this.items.length < this.capacity ? 0 : (this.items[0] as KeywordMatch).relevance
  }

  drainBestFirst(): KeywordMatch[] {
    return this.items.sort((left, right) => right.relevance - left.relevance || left.seq - right.seq)
  }

  private siftUp(index: number): void {
    const items = this.items
    while (index > 0) {
      const parent = (index - 1) >> 1
      const item = items[index] as KeywordMatch
      if (!isBetter((items[parent] as KeywordMatch).relevance, (items[parent] as KeywordMatch).seq, item))
        break
      items[index] = items[parent] as KeywordMatch
      items[parent] = item
      index = parent
    }
  }

  private siftDown(index: number): void {
    const items = this.items
    for (;;) {
      const left = index * 2 + 1
      const right = left + 1
      let smallest = index
      if (left < items.length && isWorse(items[left] as KeywordMatch, items[smallest] as KeywordMatch))
        smallest = left
      if (right < items.length && isWorse(items[right] as KeywordMatch, items[smallest] as KeywordMatch))
        smallest = right
      if (smallest === index) return
      const item = items[index] as KeywordMatch
      items[index] = items[smallest] as KeywordMatch
      items[smallest] = item
      index = smallest
    }
  }
}

function isBetter(relevance: number, seq: number, than: KeywordMatch): boolean {
  return relevance > than.relevance || (relevance === than.relevance && seq < than.seq)
}

function isWorse(item: KeywordMatch, than: KeywordMatch): boolean {
  return isBetter(than.relevance, than.seq, item)
}
