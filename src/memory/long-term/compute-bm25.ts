/**
 * The pieces of FTS5's bm25() (k1 = 1.2, b = 0.75, per-column weights), shared by the keyword
 * index (for its per-term upper bounds) and the ranking: a document's score for a term is
 * `idf × (k1 + 1) × saturation`.
 */

export const bm25K1 = 1.2
export const bm25B = 0.75

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

/** The IDF of FTS5's bm25(): never below a tiny positive number, so common terms still count. */
export function computeBm25Idf(documentCount: number, frequency: number): number {
  const inverse = Math.log((documentCount - frequency + 0.5) / (frequency + 0.5))
  return inverse > 0 ? inverse : 1e-6
}
