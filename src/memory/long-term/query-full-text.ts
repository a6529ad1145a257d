/**
 * The keyword stage of retrieval: BM25 from SQLite FTS5 over an OR of the query's terms.
 *
 * Two things keep it fast on large stores. FTS5 spends a few microseconds per matching row on
 * BM25, so terms are taken rarest first until their summed document frequency reaches
 * `postingBudget`; the remaining (common, low-IDF) terms do not select candidates but still add
 * their IDF to candidates that contain them. And the scope filter runs inside the index (an AND
 * with the scope's token) only for a minority scope; when one scope holds most memories, an AND
 * with its huge posting list costs more than filtering the ranked rows afterwards.
 */
import type Database from 'better-sqlite3'
import {
  convertScopeToKey,
  knowledgeScope,
  knowledgeScopeKey,
  type MemoryItemRow,
} from './memory-item-row.js'
import type { MemoryRankingOptions } from './memory-ranking.js'

export type RankedRow = MemoryItemRow & { source_name: string | null }

export interface FullTextCandidate {
  row: RankedRow
  relevance: number
  /** The snippet's own index terms (as stored in the index). */
  bodyTerms: string[]
}

export interface FullTextResult {
  candidates: FullTextCandidate[]
  /** Documents containing each query term, over the whole store. */
  documentFrequency: Map<string, number>
  itemCount: number
}

export interface FullTextQuery {
  run(terms: string[], scope: string, limit: number): FullTextResult
  /** Forget cached counts after a write. */
  noteChange(): void
}

export const itemColumns =
  'i.seq, i.id, i.kind, i.scope, i.text, i.speaker, i.time, i.metadata, i.source_turn, i.document_id, i.context, i.token_count, d.name AS source_name'

export function createFullTextQuery(
  database: Database.Database,
  ranking: MemoryRankingOptions,
): FullTextQuery {
  const weights = `bm25(0.0, ${ranking.speakerWeight}, 1.0, ${ranking.contextWeight})`
  const rankedStatement = database.prepare(
    `SELECT ${itemColumns}, f.rank AS rank, c.body AS fts_body, c.context AS fts_context
     FROM (SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? AND rank MATCH '${weights}'
           ORDER BY rank LIMIT ?) AS f
     JOIN memory_items i ON i.seq = f.rowid
     JOIN memory_fts c ON c.rowid = f.rowid
     LEFT JOIN knowledge_documents d ON d.id = i.document_id
     ORDER BY f.rank`,
  )
  const frequencyStatement = database.prepare('SELECT doc FROM memory_fts_terms WHERE term = ?').pluck()
  const countStatement = database.prepare('SELECT count(*) FROM memory_items').pluck()
  const scopeCountStatement = database
    .prepare(`SELECT count(*) FROM memory_items WHERE kind = 'memory' AND scope = ?`)
    .pluck()
  let itemCount: number | undefined
  const scopeCounts = new Map<string, number>()

  return {
    noteChange() {
      itemCount = undefined
      scopeCounts.clear()
    },
    run(terms, scope, limit) {
      itemCount ??= countStatement.get() as number
      const total = itemCount
      const documentFrequency = new Map<string, number>()
      for (const term of terms)
        documentFrequency.set(term, (frequencyStatement.get(term) as number | undefined) ?? 0)
      const present = terms.filter((term) => (documentFrequency.get(term) ?? 0) > 0)
      if (present.length === 0) return { candidates: [], documentFrequency, itemCount: total }
      present.sort((left, right) => (documentFrequency.get(left) ?? 0) - (documentFrequency.get(right) ?? 0))
      const selecting: string[] = []
      let postings = 0
      for (const term of present) {
        const frequency = documentFrequency.get(term) ?? 0
        if (selecting.length > 0 && postings + frequency > ranking.postingBudget) break
        selecting.push(term)
        postings += frequency
      }
      const pruned = present.slice(selecting.length)
      let scopeCount = scopeCounts.get(scope)
      if (scopeCount === undefined) {
        scopeCount = scopeCountStatement.get(scope) as number
        scopeCounts.set(scope, scopeCount)
      }
      // No column filter: scope keys are hashes no query term produces, and a filter costs time.
      const termsExpression = `(${selecting.map((term) => `"${term}"`).join(' OR ')})`
      const majority = scopeCount * 2 > total
      const scopeFilter = `scope_key : ("${convertScopeToKey(scope)}" OR "${knowledgeScopeKey}") AND `
      const match = majority ? termsExpression : scopeFilter + termsExpression
      type Row = RankedRow & { rank: number; fts_body: string; fts_context: string }
      let rows: Row[] = []
      // Filtering afterwards can leave fewer than `limit` rows; fetch deeper until enough or all.
      for (let fetch = majority ? Math.ceil(limit * 1.5) : limit; ; fetch *= 4) {
        const fetched = rankedStatement.all(match, fetch) as Row[]
        rows = majority
          ? fetched.filter((row) => row.scope === scope || row.scope === knowledgeScope)
          : fetched
        if (rows.length >= limit || fetched.length < fetch) break
      }
      const candidates = rows.slice(0, limit).map((row) => {
        const bodyTerms = row.fts_body ? row.fts_body.split(' ') : []
        let relevance = -row.rank
        if (pruned.length) {
          const body = new Set(bodyTerms)
          const context = new Set(row.fts_context ? row.fts_context.split(' ') : [])
          for (const term of pruned) {
            const inverse = computeBm25Idf(total, documentFrequency.get(term) ?? 0)
            if (body.has(term)) relevance += inverse
            else if (context.has(term)) relevance += inverse * ranking.contextWeight
          }
        }
        return { row, relevance, bodyTerms }
      })
      return { candidates, documentFrequency, itemCount: total }
    },
  }
}

/** The IDF FTS5's bm25() uses, so pruned terms add on the same scale. */
function computeBm25Idf(total: number, frequency: number): number {
  return Math.max(1e-6, Math.log((total - frequency + 0.5) / (frequency + 0.5)))
}
