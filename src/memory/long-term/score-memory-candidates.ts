/**
 * The final score of a search candidate: its relevance (in [0, 1]) times factors each at most 1 —
 * time decay, keyword boost (divided by its own maximum), length penalty, and, for a question that
 * asks when, whether the memory tells a time. Read from the keyword index where it holds the
 * candidate (no row is read or segmented), else from the row.
 */
import {
  computeKeywordBoost,
  computeLengthPenalty,
  computeTimeDecay,
  type MemoryRankingOptions,
} from './memory-ranking.js'
import type { MemoryTermIndex } from './memory-term-index.js'
import { segmentText } from './segment-text.js'

/** What the final scoring needs to know of the query. */
export interface QueryFeatures {
  /** Rare query terms with their IDF (the keyword boost). */
  rareTerms: Map<string, number>
  /** When the query asks when: the terms of a memory that tells a time (`findTimeReferenceTerms`). */
  timeTerms: readonly string[]
  /** The query's words that name a speaker (`findNamedSpeakers`); empty when it names none. */
  speakerTerms: readonly string[]
}

export interface CandidateScorer {
  /** The query terms in at most `rareTermShare` of the documents, with their IDF. */
  findRareTerms(documentFrequency: Map<string, number>, documentCount: number): Map<string, number>
  /** A candidate the keyword index holds. */
  scoreIndexed(relevance: number, partition: MemoryTermIndex, slot: number, query: QueryFeatures): number
  /** A row the index lacks (a vector hit written by a writer it has not seen). */
  scoreRow(relevance: number, row: { text: string; kind: string; time: number }, query: QueryFeatures): number
}

export function createCandidateScorer(ranking: MemoryRankingOptions, now: number): CandidateScorer {
  function combine(relevance: number, factors: number[]): number {
    let product = relevance
    for (const factor of factors) product *= factor
    return product / (1 + Math.max(0, ranking.keywordBoost))
  }

  function weighTimeAnswer(query: QueryFeatures, timed: boolean): number {
    return query.timeTerms.length === 0 || timed ? 1 : ranking.untimedShare
  }

  /** A memory said by someone the query does not name, when it names a speaker, counts for less. */
  function weighSpeaker(query: QueryFeatures, partition: MemoryTermIndex, slot: number): number {
    if (query.speakerTerms.length === 0 || partition.kind !== 'memory') return 1
    return query.speakerTerms.some((term) => partition.hasInSpeaker(term, slot))
      ? 1
      : ranking.otherSpeakerShare
  }

  return {
    findRareTerms(documentFrequency, documentCount) {
      const rare = new Map<string, number>()
      if (ranking.keywordBoost <= 0) return rare
      const total = Math.max(1, documentCount)
      for (const [term, frequency] of documentFrequency) {
        if (frequency > 0 && frequency / total <= ranking.rareTermShare)
          rare.set(term, Math.log(1 + total / frequency))
      }
      return rare
    },
    scoreIndexed(relevance, partition, slot, query) {
      const snippetTerms = new Set<string>()
      for (const term of query.rareTerms.keys()) if (partition.hasInBody(term, slot)) snippetTerms.add(term)
      const time = partition.times[slot] as number
      const timed = query.timeTerms.some((term) => partition.hasInBody(term, slot))
      return combine(relevance, [
        partition.kind === 'memory' ? computeTimeDecay(now - time, ranking) : 1,
        computeKeywordBoost({ rareTerms: query.rareTerms, snippetTerms }, ranking),
        computeLengthPenalty(partition.bodyLengths[slot] as number, ranking),
        weighTimeAnswer(query, timed),
        weighSpeaker(query, partition, slot),
      ])
    },
    scoreRow(relevance, row, query) {
      const bodyTerms = segmentText(row.text)
      const snippetTerms = new Set(bodyTerms)
      const timed = query.timeTerms.some((term) => snippetTerms.has(term))
      return combine(relevance, [
        row.kind === 'memory' ? computeTimeDecay(now - row.time, ranking) : 1,
        computeKeywordBoost({ rareTerms: query.rareTerms, snippetTerms }, ranking),
        computeLengthPenalty(bodyTerms.length, ranking),
        weighTimeAnswer(query, timed),
      ])
    },
  }
}
