/**
 * How a retrieved snippet's final score is made (seed 002): relevance (BM25, or BM25 fused with
 * vector similarity) times three factors — time decay, keyword boost and length penalty. Each
 * factor is a pure function of its inputs so the rules can be tested one by one.
 */

/** Tunable ranking rules; every field has a default (`defaultMemoryRanking`). */
export interface MemoryRankingOptions {
  /** Age at which the decaying share of a memory's score halves, in days. */
  halfLifeDays: number
  /** Share of the score that decays with age (0: no decay, 1: fully). Knowledge never decays. */
  decayWeight: number
  /** Extra weight for snippets that contain the query's rare terms (0: off). */
  keywordBoost: number
  /** A term is rare when it occurs in at most this share of stored snippets. */
  rareTermShare: number
  /** Snippets with fewer index terms than this are penalised ("ok", "haha"). */
  shortTerms: number
  /**
   * A memory with fewer index terms than `lengthPriorPivot` times the searched memories' average
   * keeps `(terms / (pivot × average)) ^ lengthPriorWeight` of its score (0: off).
   */
  lengthPriorWeight: number
  /** Where the length prior stops, as a multiple of the average number of index terms. */
  lengthPriorPivot: number
  /** Snippets with more index terms than this are penalised. */
  longTerms: number
  /** BM25 weight of the speaker's name against the snippet's own words (1). */
  speakerWeight: number
  /** BM25 weight of neighbouring text (the previous turn, a chunk's headings). */
  contextWeight: number
  /** Character-shingle Jaccard similarity above which a snippet counts as a near-duplicate. */
  duplicateThreshold: number
  /** Candidates fetched from each retriever before the final ranking. */
  candidates: number
  /** Best direct matches whose words expand the query (pseudo-relevance feedback; 0: off). */
  feedbackDocuments: number
  /** Most words the feedback adds to the query. */
  feedbackTerms: number
  /** Weight of an added word against a word of the query itself (1). */
  feedbackWeight: number
  /** Words in more than this share of the memories are never added. */
  feedbackTermShare: number
  /** The expansion never lifts a memory above this many of the best the query's own words found. */
  feedbackKeep: number
  /**
   * Share of its score a memory keeps when the query names a date ("in May 2023") and the memory
   * was not said in or just after it (1: dates are ignored).
   */
  undatedShare: number
  /**
   * A candidate that matches on its own words, a turn or two from one of the best matches in the
   * same sitting, rises to at least this share of that match (0: off; `rerankByLocality`).
   */
  nearShare: number
  /** Weight of how well a candidate's stretch of conversation matches (0: off; `rerankByLocality`). */
  supportWeight: number
  /**
   * Weight of how much of the query a candidate's whole sitting matched, against the sitting that
   * matched most (0: off; `rerankByLocality`).
   */
  sittingWeight: number
  /** Weight of another form of a query word ("adopt" for "adoption") against the word itself (0: off). */
  variantWeight: number
  /**
   * Share of its score a memory keeps when the query asks when and the memory tells no time
   * ("yesterday", "last week", a weekday or month; 1: off).
   */
  untimedShare: number
  /**
   * Share of its score a memory keeps when the query names a speaker ("What did Caroline…") and
   * someone else said it (1: off). On LoCoMo 95% of the evidence for a question that names one
   * speaker was said by that speaker.
   */
  otherSpeakerShare: number
  /**
   * Hits scoring below this (scores are in [0, 1]) are not returned. The store's default keeps
   * every match; the server passes `memory.min_score`.
   */
  minScore: number
}

export const defaultMemoryRanking: MemoryRankingOptions = {
  halfLifeDays: 30,
  decayWeight: 0.1,
  keywordBoost: 0.3,
  rareTermShare: 0.02,
  shortTerms: 3,
  lengthPriorWeight: 0.1,
  lengthPriorPivot: 2,
  longTerms: 150,
  speakerWeight: 0.5,
  contextWeight: 0.5,
  duplicateThreshold: 0.85,
  candidates: 150,
  feedbackDocuments: 3,
  feedbackTerms: 8,
  feedbackWeight: 0.3,
  feedbackTermShare: 0.05,
  feedbackKeep: 10,
  undatedShare: 0.5,
  variantWeight: 0.5,
  nearShare: 0.5,
  supportWeight: 0.3,
  sittingWeight: 0.2,
  untimedShare: 0.7,
  otherSpeakerShare: 0.8,
  minScore: 0,
}

const dayMs = 24 * 60 * 60 * 1000

/** 1 for a memory made now, falling towards `1 - decayWeight` as it ages. */
export function computeTimeDecay(ageMs: number, options: MemoryRankingOptions): number {
  if (options.decayWeight <= 0 || options.halfLifeDays <= 0) return 1
  const age = Math.max(0, ageMs) / dayMs
  return 1 - options.decayWeight + options.decayWeight * 0.5 ** (age / options.halfLifeDays)
}

/** Below 1 for snippets too short to say anything or too long to be about one thing. */
export function computeLengthPenalty(termCount: number, options: MemoryRankingOptions): number {
  if (termCount < options.shortTerms) return 0.5 + (0.5 * termCount) / options.shortTerms
  if (termCount > options.longTerms) return Math.sqrt(options.longTerms / termCount)
  return 1
}

/** The length prior's two settings (`lengthPriorWeight`, `lengthPriorPivot`). */
export interface LengthPriorOptions {
  weight: number
  pivot: number
}

/**
 * Below 1 for a memory that says less than most: a turn of a few words ("Thanks, Evan!") is less
 * likely to hold what a question asks about than one that tells something, even when both say the
 * question's word. `(terms / (pivot × averageTerms)) ^ weight` below the pivot, 1 from it on.
 */
export function computeLengthPrior(
  termCount: number,
  averageTerms: number,
  options: LengthPriorOptions,
): number {
  const pivot = options.pivot * averageTerms
  // A memory counts at least one word: below a pivot under one word (a store of empty memories)
  // every memory is at or past it, and the prior never lifts a score.
  const terms = Math.max(1, termCount)
  if (options.weight <= 0 || !(pivot > 0) || terms >= pivot) return 1
  return (terms / pivot) ** options.weight
}

export interface KeywordBoostInput {
  /** Rare query terms with their inverse document frequency. */
  rareTerms: ReadonlyMap<string, number>
  /** The snippet's terms. */
  snippetTerms: ReadonlySet<string>
}

/** 1 plus `keywordBoost` times the IDF-weighted share of the query's rare terms the snippet has. */
export function computeKeywordBoost(input: KeywordBoostInput, options: MemoryRankingOptions): number {
  if (options.keywordBoost <= 0 || input.rareTerms.size === 0) return 1
  let total = 0
  let matched = 0
  for (const [term, idf] of input.rareTerms) {
    total += idf
    if (input.snippetTerms.has(term)) matched += idf
  }
  return total > 0 ? 1 + (options.keywordBoost * matched) / total : 1
}
