/**
 * The pieces of BM25 (k1 = 1.2, b = 0.75 and per-column weights as in FTS5's bm25(), with an IDF
 * that stays positive), shared by the keyword index and the ranking: a document's score for a
 * term is `idf × (k1 + 1) × saturation`.
 */

export const bm25K1 = 1.2
const bm25B = 0.75

/** Weight of speaker-name and neighbouring-text matches against a match in the snippet itself (1). */
export interface ColumnWeights {
  speakerWeight: number
  contextWeight: number
}

/** Packed counts: speaker in bits 0–9, body in bits 10–20, context in bits 21–31. */
export function readSpeakerCount(packed: number): number {
  return packed & 0x3ff
}

export function readBodyCount(packed: number): number {
  return (packed >>> 10) & 0x7ff
}

export function readContextCount(packed: number): number {
  return packed >>> 21
}

/** A term's weighted frequency in one document. */
export function weighTermCounts(packed: number, weights: ColumnWeights): number {
  return (
    weights.speakerWeight * readSpeakerCount(packed) +
    readBodyCount(packed) +
    weights.contextWeight * readContextCount(packed)
  )
}

/** `f / (f + k1 · (1 − b + b · length / averageLength))`: below 1, growing with f and with averageLength. */
export function computeSaturation(frequency: number, length: number, averageLength: number): number {
  return frequency / (frequency + bm25K1 * (1 - bm25B + (bm25B * length) / averageLength))
}

/**
 * `ln(1 + (N − df + 0.5) / (df + 0.5))`, always positive. FTS5's bm25() uses the same without the
 * `1 +` and floors it at 1e-6, which gives a word in more than half of the documents (in a small
 * store, most words) no weight at all: a user with three memories found the one that says "蛋糕"
 * with a score of 1e-6 because a neighbour's context also held the word.
 */
export function computeBm25Idf(documentCount: number, frequency: number): number {
  return Math.log(1 + (documentCount - frequency + 0.5) / (frequency + 0.5))
}
