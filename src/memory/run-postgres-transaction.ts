/** One PostgreSQL transaction on a pooled client, committed when `work` resolves. */
import type { Pool, PoolClient } from 'pg'
import { type Logger, scrubSecrets } from '../shared/logger.js'

export interface RunPostgresTransactionOptions {
  logger?: Logger
  /** What the transaction does, for the warning when its client fails, e.g. `a memory write`; no warning when absent. */
  doing?: string
  /** The statement that opens the transaction. @default 'BEGIN' */
  begin?: string
  /** Errors that leave the client fit for reuse (an answer from the server, not a failure). */
  isAnswer?: (error: unknown) => boolean
}

export async function runPostgresTransaction<Result>(
  pool: Pool,
  options: RunPostgresTransactionOptions,
  work: (client: PoolClient) => Promise<Result>,
): Promise<Result> {
  const client = await pool.connect()
  // The pool listens for errors only on idle clients: a checked-out client whose server goes away
  // emits 'error', which without a listener is an uncaught exception that ends the process.
  let broken: Error | undefined
  const onError = (error: Error) => {
    broken = error
    if (options.logger && options.doing)
      options.logger.warn(
        { err: scrubSecrets(error.message) },
        `postgres client error during ${options.doing}`,
      )
  }
  client.on('error', onError)
  try {
    await client.query(options.begin ?? 'BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    if (!options.isAnswer?.(error)) broken ??= error as Error
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.off('error', onError)
    // A client that failed is destroyed rather than handed to the next caller half-way through a
    // transaction or with a query still waiting for an answer.
    client.release(broken)
  }
}
