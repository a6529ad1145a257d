/**
 * BM25 over the in-process keyword index: the same formula, constants and column weights as
 * SQLite FTS5's bm25() over an OR of the query's terms, with the collection statistics (document
 * count, average length, document frequency) taken over the searched partitions together.
 *
 * Term at a time, rarest (highest upper bound) first, adding into a score per slot. Once the
 * `limit`-th best score so far exceeds what all the remaining terms could add together (max-score
 * pruning), no unseen document can enter the top: the remaining, common terms are then only
 * looked up for the surviving candidates instead of walking their long postings. The result is
 * exact; only the work changes.
 */
import {
  bm25K1,
  type ColumnWeights,
  computeBm25Idf,
  computeSaturation,
  weighTermCounts,
} from './compute-bm25.js'
import { type KeywordMatch, KeywordMatchHeap } from './keyword-match-heap.js'
import type { MemoryTermIndex, TermPostings } from './memory-term-index.js'

export type { KeywordMatch } from './keyword-match-heap.js'

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

export interface RankKeywordMatchesResult {
  /** Best first. */
  matches: KeywordMatch[]
  /** Documents containing each query term, over the searched partitions. */
  documentFrequency: Map<string, number>
  documentCount: number
  /** Query terms looked up only for surviving candidates (max-score pruning), over all partitions. */
  prunedTerms: number
}

interface TermPlan {
  postings: TermPostings
  inverse: number
  /** The most this term can add to one document's score in this partition. */
  bound: number
}

interface Scoring extends ColumnWeights {
  averageLength: number
}

// Scratch buffers reused by every search (searches are synchronous, so never shared at once).
let scores = new Float64Array(1024)
let touched = new Int32Array(1024)
let thresholdScratch = new Float64Array(1024)

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
  if (documentCount === 0 || limit <= 0)
    return { matches: [], documentFrequency, documentCount, prunedTerms: 0 }
  const scoring: Scoring = {
    averageLength: totalLength / documentCount,
    speakerWeight: options.speakerWeight,
    contextWeight: options.contextWeight,
  }
  const heap = new KeywordMatchHeap(limit)
  let prunedTerms = 0
  // Small partitions first: their matches raise the bar the large one has to clear.
  const ordered = [...partitions].sort((left, right) => left.documentCount - right.documentCount)
  for (const partition of ordered) {
    const plans: TermPlan[] = []
    for (const term of terms) {
      const postings = partition.terms.get(term)
      if (!postings) continue
      const inverse = computeBm25Idf(documentCount, documentFrequency.get(term) ?? 0)
      plans.push({ postings, inverse, bound: computeTermBound(postings, inverse, scoring) })
    }
    plans.sort((left, right) => right.bound - left.bound)
    prunedTerms += scorePartition(partition, plans, heap, scoring)
  }
  return { matches: heap.drainBestFirst(), documentFrequency, documentCount, prunedTerms }
}

/** Scores one partition into the heap; returns how many terms were only looked up. */
function scorePartition(
  partition: MemoryTermIndex,
  plans: TermPlan[],
  heap: KeywordMatchHeap,
  scoring: Scoring,
): number {
  if (partition.slotCount > scores.length) {
    scores = new Float64Array(partition.slotCount * 2)
    touched = new Int32Array(partition.slotCount * 2)
  }
  // remaining[i]: the most terms i, i+1, … can add together; postingsLeft[i]: their postings.
  const remaining = new Float64Array(plans.length + 1)
  const postingsLeft = new Float64Array(plans.length + 1)
  for (let index = plans.length - 1; index >= 0; index--) {
    const plan = plans[index] as TermPlan
    remaining[index] = (remaining[index + 1] as number) + plan.bound
    postingsLeft[index] = (postingsLeft[index + 1] as number) + plan.postings.size
  }
  let touchedCount = 0
  let walked = 0
  let threshold = 0
  for (; walked < plans.length; walked++) {
    const rest = remaining[walked] as number
    // Finding the threshold costs a pass over the documents found so far: only worth it when the
    // postings it could skip are many more, and when some document could already beat the rest.
    const worthChecking =
      walked > 0 &&
      (postingsLeft[walked] as number) > 2 * touchedCount &&
      heap.size + touchedCount >= heap.capacity &&
      Math.max(heap.worstRelevance, (remaining[0] as number) - rest) > rest
    if (worthChecking) {
      threshold = findThreshold(heap, touchedCount)
      if (threshold > rest) break
    }
    touchedCount = addTermScores(partition, plans[walked] as TermPlan, scoring, touchedCount)
  }
  if (walked === plans.length) {
    offerTouched(partition, touchedCount, heap)
    return 0
  }
  // Only documents that can still reach the threshold stay; the rest of the terms are looked up.
  const rest = remaining[walked] as number
  let candidateCount = 0
  const candidates = new Int32Array(touchedCount)
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index] as number
    if ((scores[slot] as number) + rest >= threshold) candidates[candidateCount++] = slot
    else scores[slot] = 0
  }
  const survivors = candidates.subarray(0, candidateCount).sort()
  for (let index = walked; index < plans.length; index++)
    addCandidateScores(partition, plans[index] as TermPlan, scoring, survivors)
  survivors.forEach((slot, index) => {
    touched[index] = slot
  })
  offerTouched(partition, survivors.length, heap)
  return plans.length - walked
}

/** Offers every touched slot; once the heap is full most fail one comparison. */
function offerTouched(partition: MemoryTermIndex, touchedCount: number, heap: KeywordMatchHeap): void {
  const seqs = partition.seqs
  for (let index = 0; index < touchedCount; index++) {
    const slot = touched[index] as number
    const score = scores[slot] as number
    scores[slot] = 0
    // Equal scores go to the heap, which breaks ties by age.
    if (score >= heap.worstRelevance) heap.offer(partition, slot, seqs[slot] as number, score)
  }
}

/** The `capacity`-th best score among the heap and this partition's partial scores: a floor. */
function findThreshold(heap: KeywordMatchHeap, touchedCount: number): number {
  const count = heap.size + touchedCount
  if (thresholdScratch.length < count) thresholdScratch = new Float64Array(count * 2)
  let index = 0
  for (const item of heap.items) thresholdScratch[index++] = item.relevance
  for (let position = 0; position < touchedCount; position++)
    thresholdScratch[index++] = scores[touched[position] as number] as number
  return selectLargest(thresholdScratch, count, heap.capacity)
}

/** The `rank`-th largest of `values[0..count)` (quickselect; reorders the values). */
function selectLargest(values: Float64Array, count: number, rank: number): number {
  let low = 0
  let high = count - 1
  const target = rank - 1
  while (low < high) {
    const pivot = values[(low + high) >>> 1] as number
    let left = low
    let right = high
    while (left <= right) {
      while ((values[left] as number) > pivot) left++
      while ((values[right] as number) < pivot) right--
      if (left <= right) {
        const swap = values[left] as number
        values[left++] = values[right] as number
        values[right--] = swap
      }
    }
    if (target <= right) high = right
    else if (target >= left) low = left
    else break
  }
  return values[target] as number
}

/** The most one term can add to a document's score (see `TermPostings.maxSaturation`). */
function computeTermBound(postings: TermPostings, inverse: number, scoring: Scoring): number {
  const saturation = Math.max(
    postings.maxSaturation,
    scoring.averageLength * postings.maxSaturationPerAverage,
  )
  return inverse * (bm25K1 + 1) * Math.min(1, saturation)
}

function scorePosting(packed: number, length: number, inverse: number, scoring: Scoring): number {
  return (
    inverse *
    (bm25K1 + 1) *
    computeSaturation(weighTermCounts(packed, scoring), length, scoring.averageLength)
  )
}

function addTermScores(
  partition: MemoryTermIndex,
  plan: TermPlan,
  scoring: Scoring,
  touchedCount: number,
): number {
  const { slots, counts, size } = plan.postings
  const lengths = partition.lengths
  let count = touchedCount
  for (let index = 0; index < size; index++) {
    const slot = slots[index] as number
    const previous = scores[slot] as number
    if (previous === 0) touched[count++] = slot
    const contribution = scorePosting(counts[index] as number, lengths[slot] as number, plan.inverse, scoring)
    // A zero contribution (a match in a zero-weight column) still marks the document as found.
    scores[slot] = previous + contribution || Number.MIN_VALUE
  }
  return count
}

/** Adds one term's contribution to the candidates (sorted slots) that contain it. */
function addCandidateScores(
  partition: MemoryTermIndex,
  plan: TermPlan,
  scoring: Scoring,
  candidates: Int32Array,
): void {
  const { slots, counts, size } = plan.postings
  const lengths = partition.lengths
  if (candidates.length * 8 >= size) {
    // Candidates about as many as postings: one pass, touching only documents still in the race.
    for (let index = 0; index < size; index++) {
      const slot = slots[index] as number
      const previous = scores[slot] as number
      if (previous === 0) continue
      scores[slot] =
        previous + scorePosting(counts[index] as number, lengths[slot] as number, plan.inverse, scoring)
    }
    return
  }
  let position = 0
  for (const slot of candidates) {
    position = findFrom(slots, size, position, slot)
    if (position >= size) return
    if (slots[position] !== slot) continue
    const contribution = scorePosting(
      counts[position] as number,
      lengths[slot] as number,
      plan.inverse,
      scoring,
    )
    scores[slot] = (scores[slot] as number) + contribution
  }
}

/** The first position at or after `from` whose slot is >= `slot` (galloping, then binary search). */
function findFrom(slots: Int32Array, size: number, from: number, slot: number): number {
  let step = 1
  let low = from
  let high = from
  while (high < size && (slots[high] as number) < slot) {
    low = high + 1
    high += step
    step *= 2
  }
  high = Math.min(high, size)
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((slots[middle] as number) < slot) low = middle + 1
    else high = middle
  }
  return low
}
