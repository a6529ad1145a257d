/** One PostgreSQL transaction on a pooled client, committed when `work` resolves. */
import type { Pool, PoolClient } from 'pg'
import { type Logger, scrubSecrets } from '../shared/logger.js'
import type { CommitGate } from './types.js'
import { markWriteNotApplied } from './write-not-applied.js'

export interface RunPostgresTransactionOptions {
  logger?: Logger
  /** What the transaction does, for the warning when its client fails, e.g. `a memory write`; no warning when absent. */
  doing?: string
  /** The statement that opens the transaction. @default 'BEGIN' */
  begin?: string
  /** Errors that leave the client fit for reuse (an answer from the server, not a failure). */
  isAnswer?: (error: unknown) => boolean
  /**
   * Milliseconds since the epoch. The transaction commits only if the server reads its COMMIT
   * before then (checked on the server, in the same message as the COMMIT), and at the deadline the
   * client is ended: a statement still on its way, or a server frozen mid-transaction, can no longer
   * commit it later. Clocks of the servers are assumed in step (NTP).
   */
  deadline?: number
  /** Asked just before the COMMIT is sent: once the caller has given up, the transaction rolls back. */
  commitGate?: CommitGate
}

/** A commit that refuses itself once the server's clock is past `deadline`. */
function commitBefore(deadline: number): string {
  const seconds = (deadline / 1000).toFixed(3)
  return `DO $$BEGIN IF clock_timestamp() > to_timestamp(${seconds}) THEN
    RAISE EXCEPTION 'the write arrived after its deadline' USING ERRCODE = '57014'; END IF; END$$; COMMIT`
}

export async function runPostgresTransaction<Result>(
  pool: Pool,
  options: RunPostgresTransactionOptions,
  work: (client: PoolClient) => Promise<Result>,
): Promise<Result> {
  // Before the first wait: from here the caller can rely on the gate.
  options.commitGate?.watch()
  let client: PoolClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw markWriteNotApplied(error)
  }
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
  const { deadline } = options
  let cutOff: NodeJS.Timeout | undefined
  let ended = false
  let commitSent = false
  if (deadline !== undefined) {
    cutOff = setTimeout(
      () => {
        ended = true
        broken ??= new Error('the transaction passed its deadline')
        // Ends the connection: the server rolls back what it has not committed.
        client.end().catch(() => {})
      },
      Math.max(0, deadline - Date.now()),
    )
    cutOff.unref()
  }
  try {
    await client.query(options.begin ?? 'BEGIN')
    const result = await work(client)
    if (broken) throw broken
    if (options.commitGate?.mayCommit() === false) throw new Error('the write was given up before its commit')
    commitSent = true
    await client.query(deadline === undefined ? 'COMMIT' : commitBefore(deadline))
    return result
  } catch (error) {
    if (!options.isAnswer?.(error)) broken ??= error as Error
    if (!ended) await client.query('ROLLBACK').catch(() => {})
    const thrown = ended
      ? new Error('the write passed its deadline (the connection was ended)', { cause: error })
      : error
    // Before its COMMIT was sent the transaction cannot have committed: the server rolls it back.
    throw commitSent ? thrown : markWriteNotApplied(thrown)
  } finally {
    clearTimeout(cutOff)
    client.off('error', onError)
    // A client that failed is destroyed rather than handed to the next caller half-way through a
    // transaction or with a query still waiting for an answer.
    client.release(broken)
  }
}
