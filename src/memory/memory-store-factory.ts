/**
 * Builds the long-term memory store the config asks for: SQLite at `storage.sqlite_path` (the
 * history's file), with vector retrieval when `memory.embeddings` names an endpoint.
 */

import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import { type Logger, registerSecrets } from '../shared/logger.js'
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
  return createSqliteMemoryStore({
    path: config.storage.sqlite_path,
    embeddings: options.embeddings ?? createConfiguredEmbeddings(config, options),
    ranking: options.ranking,
    logger: options.logger,
    now: options.now,
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
