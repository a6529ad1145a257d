/**
 * BM25 over the in-process keyword index: the constants and column weights of SQLite FTS5's
 * bm25() over an OR of the query's terms (the documents FTS5 MATCH finds), with a positive IDF
 * (`computeBm25Idf`) and the collection statistics (document count, average length, document
 * frequency) taken over the searched partitions together. Before the best are kept, a memory's
 * score may be weighed by the dates the query names and by its length (`lengthPrior`).
 *
 * Term at a time: each term's postings (typed arrays in slot order) add into a score per slot,
 * then a bounded min-heap keeps the best `limit`. The result is exact. Max-score pruning (skip
 * the common terms' postings once no unseen document can reach the top) was built and measured
 * on 100,000 memories: the threshold it needs costs a pass over the documents found so far, and
 * the queries that set the p99 are several common terms of similar weight, where it never pays
 * (BENCHMARKS.md, "Long-term memory").
 */
import {
  bm25K1,
  type ColumnWeights,
  computeBm25Idf,
  computeSaturation,
  readBodyCount,
  readSpeakerCount,
  weighTermCounts,
} from './compute-bm25.js'
import { isInWindows, type TimeWindow } from './find-query-dates.js'
import { type KeywordMatch, KeywordMatchHeap } from './keyword-match-heap.js'
import { computeLengthPrior, type LengthPriorOptions } from './memory-ranking.js'
import type { MemoryTermIndex, TermPostings } from './memory-term-index.js'

export type { KeywordMatch } from './keyword-match-heap.js'

export interface RankKeywordMatchesOptions extends ColumnWeights {
  /** The partitions searched together (a scope's memories and the knowledge chunks). */
  partitions: readonly MemoryTermIndex[]
  /** Distinct query terms. */
  terms: readonly string[]
  /** Weight of each term's score (1 when absent): expansion terms count for less than the query's own. */
  termWeights?: ReadonlyMap<string, number>
  limit: number
  /**
   * Other forms of the query's words, with their weights: scored like query terms, but not part
   * of what the query could score (a variant stands in for its word, it adds no new word).
   */
  variants?: ReadonlyMap<string, number>
  /**
   * Dates the query names: a memory said outside them keeps `outsideWindowShare` of its score
   * (knowledge chunks are not dated and keep theirs).
   */
  timeWindows?: readonly TimeWindow[]
  outsideWindowShare?: number
  /**
   * A memory with fewer own index terms than `pivot` times the searched memories' average keeps
   * `(terms / (pivot × average)) ^ weight` of its score (`computeLengthPrior`; knowledge chunks keep
   * theirs). Absent or a weight of 0: off.
   */
  lengthPrior?: LengthPriorOptions
}

export interface RankKeywordMatchesResult {
  /** Best first. */
  matches: KeywordMatch[]
  /** Documents containing each query term, over the searched partitions. */
  documentFrequency: Map<string, number>
  documentCount: number
  /**
   * The highest relevance any document could reach for these terms: each term found, in one
   * document only (the largest IDF the collection allows), fully saturated. Dividing by it puts
   * relevance in [0, 1) on one scale for every query.
   */
  maxRelevance: number
}

interface Scoring extends ColumnWeights {
  averageLength: number
}

// Scratch buffers reused by every search (searches are synchronous, so never shared at once).
let scores = new Float64Array(1024)
let touched = new Int32Array(1024)
let direct = new Uint8Array(1024)

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
  let weightSum = 0
  for (const term of terms) weightSum += options.termWeights?.get(term) ?? 1
  const maxRelevance = weightSum * (bm25K1 + 1) * computeBm25Idf(documentCount, 1)
  if (documentCount === 0 || limit <= 0)
    return { matches: [], documentFrequency, documentCount, maxRelevance }
  const scoring: Scoring = {
    averageLength: totalLength / documentCount,
    speakerWeight: options.speakerWeight,
    contextWeight: options.contextWeight,
  }
  const heap = new KeywordMatchHeap(limit)
  const priors = tabulateLengthPrior(partitions, options.lengthPrior)
  for (const partition of partitions) {
    if (partition.slotCount > scores.length) {
      scores = new Float64Array(partition.slotCount * 2)
      touched = new Int32Array(partition.slotCount * 2)
      direct = new Uint8Array(partition.slotCount * 2)
    }
    let touchedCount = 0
    for (const term of terms) {
      const postings = partition.terms.get(term)
      if (!postings) continue
      const weight = options.termWeights?.get(term) ?? 1
      const inverse = weight * computeBm25Idf(documentCount, documentFrequency.get(term) ?? 0)
      touchedCount = addTermScores(partition, postings, inverse, scoring, touchedCount)
    }
    for (const [term, weight] of options.variants ?? []) {
      const postings = partition.terms.get(term)
      if (!postings) continue
      let frequency = 0
      for (const each of partitions) frequency += each.countDocuments(term)
      const inverse = weight * computeBm25Idf(documentCount, frequency)
      touchedCount = addTermScores(partition, postings, inverse, scoring, touchedCount)
    }
    const dated = partition.kind === 'memory' && options.timeWindows?.length ? options.timeWindows : undefined
    if (dated) weighByTime(partition, touchedCount, dated, options.outsideWindowShare ?? 1)
    if (priors && partition.kind === 'memory') weighByLength(partition, touchedCount, priors)
    offerTouched(partition, touchedCount, heap)
  }
  const matches = heap.drainBestFirst()
  // A memory holding a word and its variant could pass what the query's words alone allow.
  if (options.variants?.size)
    for (const match of matches) match.relevance = Math.min(match.relevance, maxRelevance)
  return { matches, documentFrequency, documentCount, maxRelevance }
}

function addTermScores(
  partition: MemoryTermIndex,
  postings: TermPostings,
  inverse: number,
  scoring: Scoring,
  touchedCount: number,
): number {
  const { slots, counts, size } = postings
  const lengths = partition.lengths
  const factor = inverse * (bm25K1 + 1)
  let count = touchedCount
  for (let index = 0; index < size; index++) {
    const slot = slots[index] as number
    const previous = scores[slot] as number
    if (previous === 0) touched[count++] = slot
    const packed = counts[index] as number
    if (readBodyCount(packed) > 0 || readSpeakerCount(packed) > 0) direct[slot] = 1
    const frequency = weighTermCounts(packed, scoring)
    const contribution = factor * computeSaturation(frequency, lengths[slot] as number, scoring.averageLength)
    // A zero contribution (a match in a zero-weight column) still marks the document as found.
    scores[slot] = previous + contribution || Number.MIN_VALUE
  }
  return count
}

function weighByTime(
  partition: MemoryTermIndex,
  touchedCount: number,
  windows: readonly TimeWindow[],
  outsideShare: number,
): void {
  const times = partition.times
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index] as number
    if (!isInWindows(times[slot] as number, windows))
      scores[slot] = (scores[slot] as number) * outsideShare || Number.MIN_VALUE
  }
}

/**
 * The length prior of a memory with 0, 1, 2… own index terms, up to the pivot (where it reaches 1),
 * from the average over the searched memory partitions; undefined when the prior is off.
 */
function tabulateLengthPrior(
  partitions: readonly MemoryTermIndex[],
  prior: LengthPriorOptions | undefined,
): Float64Array | undefined {
  if (!prior || prior.weight <= 0) return undefined
  let documents = 0
  let terms = 0
  for (const partition of partitions) {
    if (partition.kind !== 'memory') continue
    documents += partition.documentCount
    terms += partition.totalBodyLength
  }
  if (documents === 0) return undefined
  const average = terms / documents
  const table = new Float64Array(Math.ceil(prior.pivot * average) + 1)
  for (let count = 0; count < table.length; count++) table[count] = computeLengthPrior(count, average, prior)
  return table
}

function weighByLength(partition: MemoryTermIndex, touchedCount: number, priors: Float64Array): void {
  const bodyLengths = partition.bodyLengths
  const last = priors.length - 1
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index] as number
    const prior = priors[Math.min(bodyLengths[slot] as number, last)] as number
    scores[slot] = (scores[slot] as number) * prior || Number.MIN_VALUE
  }
}

/** Offers every touched slot and clears its score; once the heap is full most fail one comparison. */
function offerTouched(partition: MemoryTermIndex, touchedCount: number, heap: KeywordMatchHeap): void {
  const seqs = partition.seqs
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index] as number
    const isDirect = direct[slot] === 1
    const score = scores[slot] as number
    scores[slot] = 0
    direct[slot] = 0
    // Equal scores go to the heap, which breaks ties by age.
    if (score >= heap.worstRelevance) heap.offer(partition, slot, seqs[slot] as number, score, isDirect)
  }
}
