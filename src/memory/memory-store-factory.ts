/**
 * Builds the long-term memory store the config asks for: SQLite at `storage.sqlite_path` (the
 * history's file), with vector retrieval when `memory.embeddings` names an endpoint.
 */

import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import { type Logger, registerSecrets } from '../shared/logger.js'
import { addStoreDeadlines } from './add-store-deadlines.js'
import { createOpenAIEmbeddings, type EmbeddingsClient } from './long-term/create-openai-embeddings.js'
import { createSqliteMemoryStore } from './long-term/create-sqlite-memory-store.js'
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
}

/** The configured memory store, or undefined when `memory.enabled` is false. */
export async function createMemoryStore(
  config: CharpipeConfig,
  options: CreateMemoryStoreOptions = {},
): Promise<MemoryStore | undefined> {
  if (!config.memory.enabled) return undefined
  const store = createSqliteMemoryStore({
    path: config.storage.sqlite_path,
    embeddings: options.embeddings ?? createConfiguredEmbeddings(config, options),
    ranking: { minScore: config.memory.min_score, ...options.ranking },
    keywordIndexMaxBytes: config.memory.index_max_mb * 1024 * 1024,
    logger: options.logger,
    now: options.now,
  })
  // Retrieval runs before the model is called, so it is bounded; writes that embed whole documents
  // (and a turn's memory, stored after its llm_done) may take as long as the embeddings endpoint.
  return addStoreDeadlines(store, {
    store: 'memory',
    backend: 'sqlite',
    timeoutMs: config.storage.timeout_ms,
    unbounded: ['add', 'update', 'addKnowledge'],
    logger: options.logger,
  })
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
    fetch: options.fetch,
  })
}
