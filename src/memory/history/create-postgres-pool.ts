/**
 * A pg Pool for a store that owns its connections (history, long-term memory), with `pg` loaded
 * as an optional peer. Both waits are bounded: a server that stops answering fails the query (and
 * the client is dropped from the pool) instead of holding a pooled client, and with it every later
 * call, forever.
 */
import type { Pool } from 'pg'
import { type Logger, scrubSecrets } from '../../shared/logger.js'
import { loadOptionalPeer } from './load-optional-peer.js'

export interface CreatePostgresPoolOptions {
  url: string
  /** Longest wait for a connection or one query, in milliseconds. */
  timeoutMs: number
  /** The config value that needs `pg`, for the missing-package error, e.g. `history.store: postgres`. */
  neededFor: string
  logger: Logger
}

export async function createPostgresPool(options: CreatePostgresPoolOptions): Promise<Pool> {
  const pg = await loadOptionalPeer<typeof import('pg')>({ packageName: 'pg', neededFor: options.neededFor })
  const Pool = pg.Pool ?? (pg as unknown as { default: typeof import('pg') }).default.Pool
  const pool = new Pool({
    connectionString: options.url,
    connectionTimeoutMillis: Math.max(options.timeoutMs, 1000),
    query_timeout: options.timeoutMs,
    max: 5,
  })
  pool.on('error', (error) =>
    options.logger.warn({ err: scrubSecrets(error.message) }, 'postgres idle client error'),
  )
  return pool
}
