/**
 * Builds the long-term memory store `memory.store` names: SQLite at `storage.sqlite_path` (the
 * history's file) or PostgreSQL at `storage.postgres_url` (its `pg` client an optional peer, loaded
 * only when chosen), with vector retrieval when `memory.embeddings` names an endpoint.
 */

import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { createSliceQueue, type SliceQueue } from '../shared/create-slice-queue.js'
import { InvalidConfigError } from '../shared/errors.js'
import { type Logger, registerSecrets } from '../shared/logger.js'
import { addStoreDeadlines } from './add-store-deadlines.js'
import { HistoryStoreError } from './history/history-store-error.js'
import { createOpenAIEmbeddings, type EmbeddingsClient } from './long-term/create-openai-embeddings.js'
import {
  type CreateSqliteMemoryStoreOptions,
  createSqliteMemoryStore,
} from './long-term/create-sqlite-memory-store.js'
import type { MemoryRankingOptions } from './long-term/memory-ranking.js'
import type { MemoryStore } from './types.js'

export interface CreateMemoryStoreOptions {
  logger?: Logger
  /** Clock in milliseconds since the epoch (tests). */
  now?: () => number
  /** Replaces the configured embeddings endpoint (tests, custom models). */
  embeddings?: EmbeddingsClient
  /** Replaces the global fetch for the embeddings endpoint (tests). */
  fetch?: typeof fetch
  /** Overrides of the ranking rules. */
  ranking?: Partial<MemoryRankingOptions>
  /** PostgreSQL: the schema holding the tables. @default 'public' */
  postgresSchema?: string
  /** The queue the store's writes take turns in (MemoryStoreOptions.slices). */
  slices?: SliceQueue
}

/** The longest wait for one embeddings request. */
const embeddingsTimeoutMs = 30_000

/** The configured memory store, or undefined when `memory.enabled` is false. */
export async function createMemoryStore(
  config: CharpipeConfig,
  options: CreateMemoryStoreOptions = {},
): Promise<MemoryStore | undefined> {
  if (!config.memory.enabled) return undefined
  // The SQLite store's writes wait their turn in this queue; the deadlines leave that wait out.
  const slices = options.slices ?? createSliceQueue()
  const shared = {
    embeddings: options.embeddings ?? createConfiguredEmbeddings(config, options),
    ranking: { minScore: config.memory.min_score, ...options.ranking },
    keywordIndexMaxBytes: config.memory.index_max_mb * 1024 * 1024,
    maxKnowledgeChars: config.memory.max_knowledge_chars,
    logger: options.logger,
    now: options.now,
    slices,
    characterIds: Object.keys(config.characters),
  }
  const store = await openMemoryStore(config, options, shared)
  // Every call is bounded, a turn's memory too (a write that never ends would hold the session's
  // memory work and the engine's close): a write that embeds its text first gets the embeddings
  // request's time on top. Only a whole knowledge document may take as long as it takes.
  const embeddingMs = shared.embeddings ? embeddingsTimeoutMs : 0
  return addStoreDeadlines(store, {
    store: 'memory',
    backend: config.memory.store,
    timeoutMs: config.storage.timeout_ms,
    longer: {
      add: config.storage.timeout_ms + embeddingMs,
      update: config.storage.timeout_ms + embeddingMs,
    },
    unbounded: ['addKnowledge'],
    queue: slices,
    logger: options.logger,
  })
}

async function openMemoryStore(
  config: CharpipeConfig,
  options: CreateMemoryStoreOptions,
  shared: Omit<CreateSqliteMemoryStoreOptions, 'path'>,
): Promise<MemoryStore> {
  switch (config.memory.store) {
    case 'sqlite':
      return createSqliteMemoryStore({ path: config.storage.sqlite_path, ...shared })
    case 'postgres': {
      if (!config.storage.postgres_url) {
        throw new HistoryStoreError(
          'memory.store is postgres but storage.postgres_url is empty; set it in config.yaml or the environment',
        )
      }
      const { createPostgresMemoryStore } = await import('./long-term/create-postgres-memory-store.js')
      return createPostgresMemoryStore({
        url: config.storage.postgres_url,
        schema: options.postgresSchema,
        timeoutMs: config.storage.timeout_ms,
        ...shared,
      })
    }
    default:
      throw new HistoryStoreError(
        `memory.store: unknown store ${JSON.stringify(config.memory.store)}; use sqlite or postgres`,
      )
  }
}

function createConfiguredEmbeddings(
  config: CharpipeConfig,
  options: CreateMemoryStoreOptions,
): EmbeddingsClient | undefined {
  const settings = config.memory.embeddings
  if (!settings) return undefined
  const resolved = resolveProviderSettings(settings)
  if (!resolved.baseUrl) {
    throw new InvalidConfigError([
      {
        path: 'memory.embeddings.base_url',
        message: `provider "${settings.provider}" has no default URL; set base_url`,
      },
    ])
  }
  registerSecrets([resolved.apiKey])
  return createOpenAIEmbeddings({
    baseUrl: resolved.baseUrl,
    apiKey: resolved.apiKey,
    model: settings.model,
    timeoutMs: embeddingsTimeoutMs,
    fetch: options.fetch,
  })
}
