/**
 * Retrieval over the memory tables: BM25 from the in-process keyword index (an OR of the query's
 * terms and, at half weight, other forms of them, so a query never comes back empty just because
 * one word is missing; memories said outside a date the query names count for less, and so, a
 * little, do memories that say less than most: the length prior), optionally
 * fused with a brute-force cosine scan of stored vectors, re-ranked by where the candidates sit in
 * the conversation (`rerankByLocality`), then re-scored with time decay, keyword boost, length
 * penalty and, for a question that asks when, whether the memory tells a time
 * (`createCandidateScorer`), and finally selected under `k`, the token budget and the
 * near-duplicate rule.
 *
 * Scores are in [0, 1] and mean the same for every query (docs/memory-scores.md): BM25 is
 * divided by the query's maximum attainable BM25 (`maxRelevance`), a fused rank by the best fused
 * rank possible, and every factor is at most 1. Hits below `minScore` are not returned, so a query
 * that matches only on words every memory has comes back empty. A memory that matches only through
 * its neighbours' words keeps only `contextOnlyShare` of its score. The query is expanded once with
 * the rarer words of its best matches (`expandQuery`), which adds recall below the top.
 */
import type { Logger } from '../../shared/logger.js'
import type { MemoryHit, MemorySearchOptions } from '../types.js'
import type { KeywordIndex } from './create-keyword-partitions.js'
import type { EmbeddingsClient } from './create-openai-embeddings.js'
import { findNamedSpeakers } from './find-named-speakers.js'
import { findQueryDates } from './find-query-dates.js'
import { findTermVariants } from './find-term-variants.js'
import { findTimeReferenceTerms } from './find-time-reference-terms.js'
import { fuseRanks } from './fuse-ranks.js'
import { convertRowToHit } from './memory-item-row.js'
import type { MemoryRankingOptions } from './memory-ranking.js'
import type { MemoryRowSource, RankedMemoryRow } from './memory-row-source.js'
import type { MemoryTermIndex } from './memory-term-index.js'
import { type KeywordMatch, rankKeywordMatches } from './rank-keyword-matches.js'
import { defaultLocality, rerankByLocality } from './rerank-by-locality.js'
import { scanVectors } from './scan-vectors.js'
import { createCandidateScorer, type QueryFeatures } from './score-memory-candidates.js'
import { capIndexedText, segmentText } from './segment-text.js'
import { createHitSelector } from './select-memory-hits.js'
import { validateSearch } from './validate-memory-input.js'

export interface MemorySearcherOptions {
  /** Where rows and vectors are read (the store's tables). */
  rows: MemoryRowSource
  keywordIndex: KeywordIndex
  ranking: MemoryRankingOptions
  embeddings?: EmbeddingsClient
  now: () => number
  logger: Logger
}

export interface MemorySearcher {
  search(query: string, options: MemorySearchOptions): Promise<MemoryHit[]>
}

type RankedRow = RankedMemoryRow

interface Candidate {
  seq: number
  relevance: number
  /** Matched on its own words or speaker (or by vector), not only through its neighbours' words. */
  direct: boolean
  /** Where the candidate sits in the keyword index (absent only for a vector hit it lacks). */
  partition?: MemoryTermIndex
  slot: number
}

export function createMemorySearcher(options: MemorySearcherOptions): MemorySearcher {
  const { ranking, keywordIndex } = options

  /**
   * Pseudo-relevance feedback: the rarer words of the best few direct matches, added to the query
   * at `feedbackWeight` (a question about "the book Melanie read" also finds the turn that names
   * the book but not Melanie). Words most memories have, and words only one memory has, are skipped.
   */
  async function expandQuery(
    first: { matches: KeywordMatch[]; documentCount: number },
    terms: readonly string[],
    partitions: readonly MemoryTermIndex[],
    rows: Map<number, RankedRow>,
  ): Promise<Map<string, number>> {
    const expansion = new Map<string, number>()
    if (ranking.feedbackDocuments <= 0 || ranking.feedbackTerms <= 0 || ranking.feedbackWeight <= 0)
      return expansion
    const top = first.matches.filter((match) => match.direct).slice(0, ranking.feedbackDocuments)
    if (top.length === 0) return expansion
    const query = new Set(terms)
    // Kept for the selection at the end, where the best matches are usually read again.
    for (const [seq, row] of await readRows(top.map((match) => match.seq))) rows.set(seq, row)
    const weights = new Map<string, number>()
    const count = Math.max(1, first.documentCount)
    for (const match of top) {
      const row = rows.get(match.seq)
      if (!row) continue
      for (const term of new Set(segmentText(row.text))) {
        if (query.has(term)) continue
        let frequency = 0
        for (const partition of partitions) frequency += partition.countDocuments(term)
        if (frequency < 2 || frequency / count > ranking.feedbackTermShare) continue
        weights.set(term, (weights.get(term) ?? 0) + Math.log(1 + count / frequency))
      }
    }
    const best = [...weights].sort((left, right) => right[1] - left[1]).slice(0, ranking.feedbackTerms)
    for (const [term] of best) expansion.set(term, ranking.feedbackWeight)
    return expansion
  }

  /**
   * Candidates of the expanded query join those of the question's own words, and may rise, but
   * never above the `keep` best the question's own words found: the expansion adds recall deeper
   * in the list without reordering its top.
   */
  function addExpandedCandidates(
    candidates: Map<number, Candidate>,
    expanded: { matches: KeywordMatch[]; maxRelevance: number },
    keep: number,
  ): void {
    const firstBest = [...candidates.values()].sort((left, right) => right.relevance - left.relevance)
    const protectedSeqs = new Set(firstBest.slice(0, keep).map((candidate) => candidate.seq))
    const ceiling = firstBest[keep - 1]?.relevance ?? Number.POSITIVE_INFINITY
    const scale = expanded.maxRelevance > 0 ? 1 / expanded.maxRelevance : 0
    for (const match of expanded.matches) {
      if (protectedSeqs.has(match.seq)) continue
      const relevance = Math.min(match.relevance * scale, ceiling * 0.999)
      const known = candidates.get(match.seq)
      if (!known) {
        // The expanded ranking is read nowhere else: its matches become candidates as they are.
        match.relevance = relevance
        candidates.set(match.seq, match)
      } else if (relevance > known.relevance) known.relevance = relevance
    }
  }

  async function rankByVector(query: string, scope: string, limit: number): Promise<number[]> {
    const embeddings = options.embeddings
    if (!embeddings) return []
    try {
      const [vector] = await embeddings.embed([query])
      if (!vector) return []
      const stored = await options.rows.readVectors({ model: embeddings.model, scope })
      return scanVectors(stored, { vector, limit })
    } catch (error) {
      // Keyword retrieval still answers when the embeddings endpoint is down.
      options.logger.warn({ err: error }, 'memory search: embeddings failed; using keyword ranking only')
      return []
    }
  }

  async function readRows(seqs: number[]): Promise<Map<number, RankedRow>> {
    const rows = await options.rows.readRows(seqs)
    return new Map(rows.map((row) => [row.seq, row]))
  }

  /**
   * Walks the ranked candidates as `selectMemoryHits` does, reading rows in batches that grow until
   * `k` are selected: most searches read a handful of rows, not every candidate.
   */
  async function selectRanked(
    ranked: ScoredCandidate[],
    rows: Map<number, RankedRow>,
    searchOptions: MemorySearchOptions,
  ) {
    const excluded = new Set(searchOptions.excludeSourceTurns ?? [])
    const selector = createHitSelector<{ row: RankedRow; score: number; text: string; tokens: number }>({
      k: searchOptions.k,
      tokenBudget: searchOptions.tokenBudget,
      duplicateThreshold: ranking.duplicateThreshold,
    })
    let walked = 0
    let batch = searchOptions.k * 2 + 4
    while (walked < ranked.length) {
      const next = ranked.slice(walked, walked + batch)
      walked += next.length
      batch = walked
      const missing = next.filter((item) => !rows.has(item.seq))
      if (missing.length)
        for (const [seq, row] of await readRows(missing.map((item) => item.seq))) rows.set(seq, row)
      for (const item of next) {
        const row = rows.get(item.seq)
        if (!row || (row.source_turn !== null && excluded.has(row.source_turn))) continue
        if (!selector.offer({ row, score: item.score, text: row.text, tokens: row.token_count }))
          return selector.selected
      }
    }
    return selector.selected
  }

  return {
    async search(query, searchOptions) {
      validateSearch(query, searchOptions)
      const { scope, k } = searchOptions
      if (k === 0) return []
      const now = options.now()
      // Dates and time questions are read in the query's indexed part alone, as its terms are: a
      // megabyte of input costs what its opening costs.
      const indexedQuery = capIndexedText(query)
      const timeWindows = findQueryDates(indexedQuery, { now })
      // Stopwords are not indexed, so a query of nothing but stopwords has nothing to match.
      const terms = [...new Set(segmentText(query))]
      if (terms.length === 0) return []
      const limit = Math.max(ranking.candidates, k * 3)
      const vectorSeqs = await rankByVector(query, scope, limit)
      // A write that lands while rows are read (the awaits below) leaves the ranking as it was; a
      // row it deleted is skipped, as a row the index lacks.
      const partitions = await keywordIndex.findPartitions(scope)
      const columnWeights = {
        speakerWeight: ranking.speakerWeight,
        contextWeight: ranking.contextWeight,
        timeWindows,
        outsideWindowShare: ranking.undatedShare,
        lengthPrior: { weight: ranking.lengthPriorWeight, pivot: ranking.lengthPriorPivot },
      }
      const variants = findTermVariants({ terms, partitions, weight: ranking.variantWeight })
      const termWeights = weighCjkCharacterTerms(terms)
      const keyword = rankKeywordMatches({
        partitions,
        terms,
        termWeights,
        variants,
        limit,
        ...columnWeights,
      })
      const keywordScale = keyword.maxRelevance > 0 ? 1 / keyword.maxRelevance : 0
      // Scaled in place: the feedback below reads only the matches' order and seqs.
      const candidates = new Map<number, Candidate>()
      for (const match of keyword.matches) {
        match.relevance *= keywordScale
        candidates.set(match.seq, match)
      }
      // Rows read by this search, by seq: feedback, scoring of unindexed hits and the selection.
      const rows = new Map<number, RankedRow>()
      const expansion = await expandQuery(keyword, terms, partitions, rows)
      if (expansion.size) {
        const expanded = rankKeywordMatches({
          partitions,
          terms: [...terms, ...expansion.keys()],
          termWeights: new Map([...termWeights, ...expansion]),
          limit,
          ...columnWeights,
        })
        addExpandedCandidates(candidates, expanded, Math.min(k, ranking.feedbackKeep))
      }
      if (vectorSeqs.length) {
        const keywordSeqs = [...candidates.values()]
          .sort((left, right) => right.relevance - left.relevance || left.seq - right.seq)
          .map((candidate) => candidate.seq)
        const lists = [keywordSeqs, vectorSeqs]
        const fused = fuseRanks(lists)
        // First in both lists is the best a fused rank can be.
        const fusedScale = 1 / (lists.length * (1 / (fusionOffset + 1)))
        for (const candidate of candidates.values())
          candidate.relevance = (fused.get(candidate.seq) ?? 0) * fusedScale
        for (const seq of vectorSeqs) {
          const known = candidates.get(seq)
          if (known) {
            known.direct = true
            continue
          }
          const partition = partitions.find((each) => each.findSlot(seq) !== undefined)
          const slot = partition?.findSlot(seq) ?? -1
          candidates.set(seq, {
            seq,
            relevance: (fused.get(seq) ?? 0) * fusedScale,
            direct: true,
            partition,
            slot,
          })
        }
      }
      if (candidates.size === 0) return []
      rerankByLocality(candidates.values(), {
        ...defaultLocality,
        nearShare: ranking.nearShare,
        supportWeight: ranking.supportWeight,
        sittingWeight: ranking.sittingWeight,
      })
      const scorer = createCandidateScorer(ranking, now)
      const features: QueryFeatures = {
        rareTerms: scorer.findRareTerms(keyword.documentFrequency, keyword.documentCount),
        timeTerms: findTimeReferenceTerms(indexedQuery),
        speakerTerms: ranking.otherSpeakerShare < 1 ? findNamedSpeakers(terms, candidates.values()) : [],
      }
      const unindexed = [...candidates.values()].filter(
        (candidate) => !candidate.partition && !rows.has(candidate.seq),
      )
      if (unindexed.length)
        for (const [seq, row] of await readRows(unindexed.map((candidate) => candidate.seq)))
          rows.set(seq, row)
      const ranked: ScoredCandidate[] = []
      for (const candidate of candidates.values()) {
        const row = rows.get(candidate.seq)
        const score = candidate.partition
          ? scorer.scoreIndexed(candidate.relevance, candidate.partition, candidate.slot, features)
          : row && scorer.scoreRow(candidate.relevance, row, features)
        if (score === undefined) continue
        const time = candidate.partition
          ? (candidate.partition.times[candidate.slot] as number)
          : (row?.time ?? 0)
        ranked.push({ seq: candidate.seq, score, time, direct: candidate.direct })
      }
      const kept = orderRanked(ranked).filter((item) => item.score >= ranking.minScore)
      return (await selectRanked(kept, rows, searchOptions)).map((item) =>
        convertRowToHit(item.row, item.score, item.row.source_name ?? undefined),
      )
    },
  }
}

interface ScoredCandidate {
  seq: number
  score: number
  time: number
  direct: boolean
}

/** The offset `fuseRanks` uses by default. */
const fusionOffset = 60

/**
 * A memory found only through its neighbours' words keeps this share of its score: neighbours help
 * recall (a reply found by its question) without outranking a memory that says the words itself.
 */
const contextOnlyShare = 0.75

/** Best first; ties go to the newer memory, then the older row. */
function orderRanked(ranked: ScoredCandidate[]): ScoredCandidate[] {
  for (const item of ranked) if (!item.direct) item.score *= contextOnlyShare
  return ranked.sort(
    (left, right) => right.score - left.score || right.time - left.time || left.seq - right.seq,
  )
}

const singleCjkCharacter = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u

/**
 * A one-character CJK term of a query that also has longer CJK words (去 and 吃 beside 火锅) is mostly
 * grammar, as English stopwords are, and counts half; alone (蛋 as the whole query) it counts fully.
 */
function weighCjkCharacterTerms(terms: readonly string[]): Map<string, number> {
  const weights = new Map<string, number>()
  const single = terms.filter((term) => singleCjkCharacter.test(term))
  if (single.length === 0 || single.length === terms.length) return weights
  for (const term of single) weights.set(term, 0.5)
  return weights
}
