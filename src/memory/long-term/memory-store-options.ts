/** What every long-term memory store takes besides where it keeps its rows (SQLite, PostgreSQL). */
import type { Logger } from '../../shared/logger.js'
import type { EmbeddingsClient } from './create-openai-embeddings.js'
import type { MemoryRankingOptions } from './memory-ranking.js'
import type { ScopeMigrationOptions } from './plan-scope-migration.js'

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
  /** Estimated bytes of the in-process keyword index; the least recently searched scopes go past it. @default 64 MiB */
  keywordIndexMaxBytes?: number
  logger?: Logger
  /** Clock in milliseconds since the epoch (tests). */
  now?: () => number
}
