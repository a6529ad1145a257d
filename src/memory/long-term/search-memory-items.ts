/**
 * Retrieval over the memory tables: BM25 from SQLite FTS5 (an OR of the query's terms, so a query
 * never comes back empty just because one word is missing), optionally fused with a brute-force
 * cosine scan of stored vectors, then re-scored with time decay, keyword boost and length penalty,
 * and finally selected under `k`, the token budget and the near-duplicate rule.
 */
import type Database from 'better-sqlite3'
import { BadRequestError } from '../../shared/errors.js'
import type { Logger } from '../../shared/logger.js'
import type { MemoryHit, MemorySearchOptions } from '../types.js'
import type { EmbeddingsClient } from './create-openai-embeddings.js'
import { fuseRanks } from './fuse-ranks.js'
import { convertRowToHit } from './memory-item-row.js'
import {
  computeKeywordBoost,
  computeLengthPenalty,
  computeTimeDecay,
  type MemoryRankingOptions,
} from './memory-ranking.js'
import {
  createFullTextQuery,
  type FullTextCandidate,
  itemColumns,
  type RankedRow,
} from './query-full-text.js'
import { scanVectors } from './scan-vectors.js'
import { segmentText } from './segment-text.js'
import { selectMemoryHits } from './select-memory-hits.js'

export interface MemorySearcherOptions {
  database: Database.Database
  ranking: MemoryRankingOptions
  embeddings?: EmbeddingsClient
  now: () => number
  logger: Logger
}

export interface MemorySearcher {
  search(query: string, options: MemorySearchOptions): Promise<MemoryHit[]>
  /** Called after every write: the stored-item count used for term rarity is cached. */
  noteChange(): void
}

export function createMemorySearcher(options: MemorySearcherOptions): MemorySearcher {
  const { database, ranking } = options
  const fullText = createFullTextQuery(database, ranking)
  const rowStatement = database.prepare(
    `SELECT ${itemColumns} FROM memory_items i LEFT JOIN knowledge_documents d ON d.id = i.document_id WHERE i.seq = ?`,
  )

  function findRareTerms(documentFrequency: Map<string, number>, itemCount: number): Map<string, number> {
    const rare = new Map<string, number>()
    if (ranking.keywordBoost <= 0) return rare
    const total = Math.max(1, itemCount)
    for (const [term, frequency] of documentFrequency) {
      if (frequency > 0 && frequency / total <= ranking.rareTermShare)
        rare.set(term, Math.log(1 + total / frequency))
    }
    return rare
  }

  async function rankByVector(query: string, scope: string, limit: number): Promise<number[]> {
    const embeddings = options.embeddings
    if (!embeddings) return []
    try {
      const [vector] = await embeddings.embed([query])
      if (!vector) return []
      return scanVectors(database, { model: embeddings.model, scope, vector, limit })
    } catch (error) {
      // Keyword retrieval still answers when the embeddings endpoint is down.
      options.logger.warn({ err: error }, 'memory search: embeddings failed; using keyword ranking only')
      return []
    }
  }

  return {
    noteChange() {
      fullText.noteChange()
    },
    async search(query, searchOptions) {
      validateSearch(query, searchOptions)
      const { scope, k } = searchOptions
      if (k === 0) return []
      // Stopwords are not indexed, so a query of nothing but stopwords has nothing to match.
      const terms = [...new Set(segmentText(query))]
      if (terms.length === 0) return []
      const limit = Math.max(ranking.candidates, k * 3)
      const keyword = fullText.run(terms, scope, limit)
      const candidates = new Map<number, FullTextCandidate>(
        keyword.candidates.map((candidate) => [candidate.row.seq, candidate]),
      )
      let relevance = new Map(keyword.candidates.map((candidate) => [candidate.row.seq, candidate.relevance]))
      const vectorSeqs = await rankByVector(query, scope, limit)
      if (vectorSeqs.length) {
        relevance = fuseRanks([keyword.candidates.map((candidate) => candidate.row.seq), vectorSeqs])
        for (const seq of vectorSeqs) {
          if (candidates.has(seq)) continue
          const row = rowStatement.get(seq) as RankedRow | undefined
          if (row) candidates.set(seq, { row, relevance: 0, bodyTerms: segmentText(row.text) })
        }
      }
      const rareTerms = findRareTerms(keyword.documentFrequency, keyword.itemCount)
      const now = options.now()
      const scored = [...candidates.values()].map(({ row, bodyTerms: snippetTerms }) => {
        const decay = row.kind === 'memory' ? computeTimeDecay(now - row.time, ranking) : 1
        const boost = computeKeywordBoost({ rareTerms, snippetTerms: new Set(snippetTerms) }, ranking)
        const penalty = computeLengthPenalty(snippetTerms.length, ranking)
        const score = (relevance.get(row.seq) ?? 0) * decay * boost * penalty
        return { row, score, text: row.text, tokens: row.token_count }
      })
      scored.sort((left, right) => right.score - left.score || right.row.time - left.row.time)
      const selected = selectMemoryHits(scored, {
        k,
        tokenBudget: searchOptions.tokenBudget,
        duplicateThreshold: ranking.duplicateThreshold,
      })
      return selected.map((item) => convertRowToHit(item.row, item.score, item.row.source_name ?? undefined))
    },
  }
}

function validateSearch(query: string, options: MemorySearchOptions): void {
  if (typeof query !== 'string') throw new BadRequestError('memory search: query must be a string')
  if (!options || typeof options.scope !== 'string') {
    throw new BadRequestError('memory search: scope must be a string')
  }
  if (!Number.isInteger(options.k) || options.k < 0) {
    throw new BadRequestError(`memory search: k must be a whole number >= 0, got ${String(options.k)}`)
  }
  const budget = options.tokenBudget
  if (budget !== undefined && (typeof budget !== 'number' || !(budget >= 0))) {
    throw new BadRequestError(`memory search: tokenBudget must be a number >= 0, got ${String(budget)}`)
  }
}
