/** What every long-term memory store takes besides where it keeps its rows (SQLite, PostgreSQL). */
import type { SliceQueue } from '../../shared/create-slice-queue.js'
import type { Logger } from '../../shared/logger.js'
import type { EmbeddingsClient } from './create-openai-embeddings.js'
import type { MemoryRankingOptions } from './memory-ranking.js'
import type { ScopeMigrationOptions } from './plan-scope-migration.js'

export const defaultMaxKnowledgeChars = 10_000_000

/** `characterIds`: read once, when a store kept before scopes were encoded is migrated. */
export interface MemoryStoreOptions extends ScopeMigrationOptions {
  /** Vector retrieval fused with BM25; keyword retrieval only when absent. */
  embeddings?: EmbeddingsClient
  /** Ranking rules; unset fields keep `defaultMemoryRanking`. */
  ranking?: Partial<MemoryRankingOptions>
  /**
   * Index each memory together with its neighbours in its scope, the memory before and the one
   * after, at `ranking.contextWeight` (a reply is found by the question it answers; on LoCoMo this
   * adds 10 points of recall@5). @default true
   */
  neighbourContext?: boolean
  /** Longest knowledge document accepted, in characters. @default 10,000,000 */
  maxKnowledgeChars?: number
  /** Estimated bytes of the in-process keyword index; the least recently searched scopes go past it. @default 64 MiB */
  keywordIndexMaxBytes?: number
  logger?: Logger
  /** Clock in milliseconds since the epoch (tests). */
  now?: () => number
  /**
   * The queue a write's synchronous slices take turns in (the engine's, which its starting turns
   * hold back until their first chunk). @default one of the store's own
   */
  slices?: SliceQueue
}
