/**
 * BM25 over the in-process keyword index: the same formula, constants and column weights as
 * SQLite FTS5's bm25() over an OR of the query's terms, with the collection statistics (document
 * count, average length, document frequency) taken over the searched partitions together.
 *
 * Term at a time: each term's postings add into a score per slot, then a bounded min-heap keeps
 * the best `limit`. Postings are typed arrays walked in order, a few nanoseconds each, so even the
 * commonest terms of 100,000 memories cost well under a millisecond.
 */
import {
  type MemoryTermIndex,
  readBodyCount,
  readContextCount,
  readSpeakerCount,
} from './memory-term-index.js'

const k1 = 1.2
const b = 0.75

export interface RankKeywordMatchesOptions {
  /** The partitions searched together (a scope's memories and the knowledge chunks). */
  partitions: readonly MemoryTermIndex[]
  /** Distinct query terms. */
  terms: readonly string[]
  limit: number
  /** Weight of a speaker-name match against a body match (1). */
  speakerWeight: number
  /** Weight of a neighbouring-text match against a body match (1). */
  contextWeight: number
}

export interface KeywordMatch {
  partition: MemoryTermIndex
  slot: number
  seq: number
  relevance: number
}

export interface RankKeywordMatchesResult {
  /** Best first. */
  matches: KeywordMatch[]
  /** Documents containing each query term, over the searched partitions. */
  documentFrequency: Map<string, number>
  documentCount: number
}

let scores = new Float64Array(1024)
let touched = new Int32Array(1024)

export function rankKeywordMatches(options: RankKeywordMatchesOptions): RankKeywordMatchesResult {
  const { partitions, terms, limit } = options
  let documentCount = 0
  let totalLength = 0
  for (const partition of partitions) {
    documentCount += partition.documentCount
    totalLength += partition.totalLength
  }
  const documentFrequency = new Map<string, number>()
  for (const term of terms) {
    let frequency = 0
    for (const partition of partitions) frequency += partition.countDocuments(term)
    documentFrequency.set(term, frequency)
  }
  const heap = new MatchHeap(limit)
  if (documentCount === 0 || limit <= 0) return { matches: [], documentFrequency, documentCount }
  const averageLength = totalLength / documentCount
  for (const partition of partitions) {
    if (partition.slotCount > scores.length) {
      scores = new Float64Array(partition.slotCount * 2)
      touched = new Int32Array(partition.slotCount * 2)
    }
    let touchedCount = 0
    for (const term of terms) {
      const postings = partition.terms.get(term)
      if (!postings) continue
      const inverse = computeBm25Idf(documentCount, documentFrequency.get(term) ?? 0)
      touchedCount = addTermScores(partition, postings.slots, postings.counts, postings.size, {
        inverse,
        averageLength,
        touchedCount,
        speakerWeight: options.speakerWeight,
        contextWeight: options.contextWeight,
      })
    }
    for (let index = 0; index < touchedCount; index++) {
      const slot = touched[index] as number
      heap.offer(partition, slot, partition.seqs[slot] as number, scores[slot] as number)
      scores[slot] = 0
    }
  }
  return { matches: heap.drainBestFirst(), documentFrequency, documentCount }
}

interface TermScoring {
  inverse: number
  averageLength: number
  touchedCount: number
  speakerWeight: number
  contextWeight: number
}

function addTermScores(
  partition: MemoryTermIndex,
  slots: Int32Array,
  counts: Int32Array,
  size: number,
  scoring: TermScoring,
): number {
  const lengths = partition.lengths
  const { inverse, averageLength, speakerWeight, contextWeight } = scoring
  let touchedCount = scoring.touchedCount
  for (let index = 0; index < size; index++) {
    const slot = slots[index] as number
    const packed = counts[index] as number
    const frequency =
      speakerWeight * readSpeakerCount(packed) +
      readBodyCount(packed) +
      contextWeight * readContextCount(packed)
    const norm = k1 * (1 - b + (b * (lengths[slot] as number)) / averageLength)
    const previous = scores[slot] as number
    if (previous === 0) touched[touchedCount++] = slot
    // A zero contribution (a match in a zero-weight column) still marks the document as found.
    scores[slot] = previous + (inverse * (frequency * (k1 + 1))) / (frequency + norm) || Number.MIN_VALUE
  }
  return touchedCount
}

/** The IDF of FTS5's bm25(): never below a tiny positive number, so common terms still count. */
export function computeBm25Idf(documentCount: number, frequency: number): number {
  const inverse = Math.log((documentCount - frequency + 0.5) / (frequency + 0.5))
  return inverse > 0 ? inverse : 1e-6
}

/** A min-heap of the best `capacity` matches; ties keep the older document, as FTS5's order did. */
class MatchHeap {
  private readonly items: KeywordMatch[] = []

  constructor(private readonly capacity: number) {}

  offer(partition: MemoryTermIndex, slot: number, seq: number, relevance: number): void {
    const items = this.items
    if (items.length < this.capacity) {
      items.push({ partition, slot, seq, relevance })
      this.siftUp(items.length - 1)
      return
    }
    const worst = items[0] as KeywordMatch
    if (!isBetter(relevance, seq, worst)) return
    items[0] = { partition, slot, seq, relevance }
    this.siftDown(0)
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
