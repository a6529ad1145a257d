/**
 * Picks the history store named by `history.store` and opens it with the matching `storage.*`
 * setting. Redis and PostgreSQL clients are optional peers, loaded only when chosen.
 */
import { isAbsolute, resolve } from 'node:path'
import type { CharpipeConfig } from '../config/schema.js'
import type { Logger } from '../shared/logger.js'
import { addStoreDeadlines } from './add-store-deadlines.js'
import { HistoryStoreError } from './history/history-store-error.js'
import { createInMemoryHistoryStore } from './history/in-memory-history-store.js'
import type { HistoryStore } from './types.js'

export interface CreateHistoryStoreOptions {
  logger?: Logger
  /**
   * Folder a relative `storage.sqlite_path` is resolved against.
   * @default process.cwd()
   */
  baseDirectory?: string
  /** Redis: put before every key. @default 'charpipe:' */
  redisKeyPrefix?: string
  /** PostgreSQL: the schema holding the tables. @default 'public' */
  postgresSchema?: string
}

/**
 * Opens the history store the config asks for. Every call of the returned store is bounded by
 * `storage.timeout_ms` and fails with `store_unavailable` (see `addStoreDeadlines`).
 */
export async function createHistoryStore(
  config: Pick<CharpipeConfig, 'history' | 'storage'>,
  options: CreateHistoryStoreOptions = {},
): Promise<HistoryStore> {
  const store = await openHistoryStore(config, options)
  return addStoreDeadlines(store, {
    store: 'history',
    backend: config.history.store,
    timeoutMs: config.storage.timeout_ms,
    logger: options.logger,
  })
}

async function openHistoryStore(
  config: Pick<CharpipeConfig, 'history' | 'storage'>,
  options: CreateHistoryStoreOptions,
): Promise<HistoryStore> {
  const { storage } = config
  switch (config.history.store) {
    case 'memory':
      return createInMemoryHistoryStore()
    case 'sqlite': {
      const { createSqliteHistoryStore } = await import('./history/sqlite-history-store.js')
      const path = storage.sqlite_path
      const resolved =
        path === ':memory:' || isAbsolute(path) ? path : resolve(options.baseDirectory ?? process.cwd(), path)
      return createSqliteHistoryStore({ path: resolved, logger: options.logger })
    }
    case 'redis': {
      if (!storage.redis_url) throw missingSetting('redis', 'storage.redis_url')
      const { createRedisHistoryStore } = await import('./history/redis-history-store.js')
      return createRedisHistoryStore({
        url: storage.redis_url,
        keyPrefix: options.redisKeyPrefix,
        timeoutMs: storage.timeout_ms,
        logger: options.logger,
      })
    }
    case 'postgres': {
      if (!storage.postgres_url) throw missingSetting('postgres', 'storage.postgres_url')
      const { createPostgresHistoryStore } = await import('./history/postgres-history-store.js')
      return createPostgresHistoryStore({
        url: storage.postgres_url,
        schema: options.postgresSchema,
        timeoutMs: storage.timeout_ms,
        logger: options.logger,
      })
    }
    default:
      throw new HistoryStoreError(
        `history.store: unknown store ${JSON.stringify(config.history.store)}; use sqlite, memory, redis or postgres`,
      )
  }
}

const missingSetting = (store: string, setting: string) =>
  new HistoryStoreError(
    `history.store is ${store} but ${setting} is empty; set it in config.yaml or the environment`,
  )
