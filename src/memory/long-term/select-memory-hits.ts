/**
 * The last step of retrieval: walk the ranked candidates best first, skip near-duplicates of what
 * is already taken (Jaccard similarity of character shingles) and anything that no longer fits the
 * token budget, until `k` snippets are taken. Shingles are taken from the indexed length of a
 * text only (`capIndexedText`), so a huge memory costs no more than any other.
 */
import { capIndexedText } from './segment-text.js'

export interface SelectableHit {
  text: string
  tokens: number
}

export interface SelectMemoryHitsOptions {
  k: number
  /** Total tokens the selection may use; unlimited when absent. */
  tokenBudget?: number
  /** Similarity above which a candidate is dropped as a near-duplicate. */
  duplicateThreshold: number
}

export function selectMemoryHits<Hit extends SelectableHit>(
  ranked: readonly Hit[],
  options: SelectMemoryHitsOptions,
): Hit[] {
  const selector = createHitSelector<Hit>(options)
  for (const hit of ranked) if (!selector.offer(hit)) break
  return selector.selected
}

export interface HitSelector<Hit extends SelectableHit> {
  /** Taken so far, best first. */
  readonly selected: Hit[]
  /** Takes `hit` unless it is a near-duplicate or past the budget; false once `k` are taken. */
  offer(hit: Hit): boolean
}

/**
 * The walk of `selectMemoryHits` one hit at a time, for a caller that reads its candidates in
 * batches: each hit's shingles are collected once, however many batches the walk takes.
 */
export function createHitSelector<Hit extends SelectableHit>(
  options: SelectMemoryHitsOptions,
): HitSelector<Hit> {
  const selected: Hit[] = []
  const shingleSets: Set<string>[] = []
  let budget = options.tokenBudget ?? Number.POSITIVE_INFINITY
  return {
    selected,
    offer(hit) {
      if (selected.length >= options.k) return false
      if (hit.tokens > budget) return true
      const shingles = collectShingles(hit.text)
      if (shingleSets.some((taken) => measureJaccard(taken, shingles) > options.duplicateThreshold))
        return true
      selected.push(hit)
      shingleSets.push(shingles)
      budget -= hit.tokens
      return selected.length < options.k
    },
  }
}

/** Character 3-shingles of the (capped) text with case, spacing and punctuation folded away. */
export function collectShingles(text: string): Set<string> {
  const folded = capIndexedText(text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '')
  const shingles = new Set<string>()
  // Three characters are three code points: slices of the string itself, cut at code point
  // boundaries when a character outside the BMP (two code units) is among them.
  const starts = surrogate.test(folded) ? findCodePointStarts(folded) : undefined
  const count = starts ? starts.length - 1 : folded.length
  if (count < 3) {
    if (count) shingles.add(folded)
    return shingles
  }
  if (!starts) {
    for (let index = 0; index + 3 <= count; index++) shingles.add(folded.slice(index, index + 3))
    return shingles
  }
  for (let index = 0; index + 3 <= count; index++)
    shingles.add(folded.slice(starts[index], starts[index + 3]))
  return shingles
}

const surrogate = /[\uD800-\uDFFF]/

/** Where each code point of `text` starts, and its length last. */
function findCodePointStarts(text: string): number[] {
  const starts: number[] = []
  let offset = 0
  for (const character of text) {
    starts.push(offset)
    offset += character.length
  }
  starts.push(offset)
  return starts
}

export function measureJaccard(left: ReadonlySet<string>, right: ReadonlySet<string>): number {
  if (left.size === 0 && right.size === 0) return 1
  let shared = 0
  for (const shingle of left) if (right.has(shingle)) shared++
  return shared / (left.size + right.size - shared)
}
