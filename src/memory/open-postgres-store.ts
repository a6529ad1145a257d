/**
 * The pool and schema of a PostgreSQL store (history, long-term memory): the caller's pool or one
 * the store owns, migrated before the store is used. A pool the store made is ended when the
 * migration fails.
 */
import type { Pool } from 'pg'
import { type Logger, scrubSecrets } from '../shared/logger.js'
import { createPostgresPool } from './history/create-postgres-pool.js'
import { describeError, describeServerUrl, HistoryStoreError } from './history/history-store-error.js'

export interface OpenPostgresStoreOptions {
  url?: string | undefined
  pool?: Pool | undefined
  schema?: string | undefined
  timeoutMs?: number | undefined
  logger: Logger
  /** The store's factory, for the error when neither url nor pool is given. */
  factoryName: string
  /** What the store holds, for errors, e.g. `history`. */
  holds: string
  /** The config value that needs `pg`, e.g. `history.store: postgres`. */
  neededFor: string
  migrate: (pool: Pool, schema: string, logger: Logger) => Promise<unknown>
}

export interface OpenPostgresStoreResult {
  pool: Pool
  /** The store made the pool and ends it on close. */
  ownsPool: boolean
  schema: string
}

/**
 * Gives every client of the pool an 'error' listener of its own from the moment it connects. The
 * pool listens only while a client is idle, and a caller only once it has the client in hand: an
 * error parsed between the two (a server that ends the connection right after its ready message,
 * 57P01 in the same packet) would otherwise be an unhandled 'error' event, which ends the process.
 * Each use still learns of the failure its own way (the query fails, the client is dropped).
 */
function guardPoolClients(pool: Pool, logger: Logger): void {
  pool.on('connect', (client) => {
    client.on('error', (error: Error) =>
      logger.debug({ err: scrubSecrets(error.message) }, 'postgres client error'),
    )
  })
}

export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<OpenPostgresStoreResult> {
  const { logger } = options
  if (!options.pool && !options.url) {
    throw new HistoryStoreError(`${options.factoryName}: give url (storage.postgres_url) or pool`)
  }
  const schema = options.schema ?? 'public'
  const ownsPool = !options.pool
  const pool =
    options.pool ??
    (await createPostgresPool({
      url: options.url!,
      timeoutMs: options.timeoutMs ?? 1000,
      neededFor: options.neededFor,
      logger,
    }))
  guardPoolClients(pool, logger)
  try {
    await options.migrate(pool, schema, logger)
  } catch (error) {
    if (ownsPool) await pool.end().catch(() => {})
    if (HistoryStoreError.isInstance(error)) throw error
    const where = options.url ? describeServerUrl(options.url) : 'the given pool'
    throw new HistoryStoreError(
      `cannot open PostgreSQL ${options.holds} at ${where}: ${scrubSecrets(describeError(error))}`,
      { cause: error },
    )
  }
  return { pool, ownsPool, schema }
}
