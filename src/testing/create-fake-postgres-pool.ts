/**
 * A pg `Pool` stand-in for tests of the transaction path without a database: one client that
 * records each statement it is sent and answers it at once, or, while the server is frozen, holds
 * it unanswered until the server thaws or the client is ended (then it fails as pg's does, with
 * "Connection terminated").
 */
import { EventEmitter } from 'node:events'
import type { Pool, PoolClient } from 'pg'

export interface FakePostgresPool {
  pool: Pool
  /** Every statement the client was sent, in order. */
  sent: string[]
  /** Whether the client was ended (its connection closed). */
  isEnded(): boolean
  /** From now on statements wait for `thaw()` (a server stopped with SIGSTOP). */
  freeze(): void
  /** Answers the statements that waited, and the next ones at once. */
  thaw(): void
}

interface HeldStatement {
  answer(): void
  fail(error: Error): void
}

export function createFakePostgresPool(): FakePostgresPool {
  const sent: string[] = []
  let frozen = false
  let ended = false
  const held: HeldStatement[] = []
  const client = Object.assign(new EventEmitter(), {
    query(statement: string) {
      sent.push(statement)
      if (ended) return Promise.reject(new Error('Client was closed and is not queryable'))
      if (!frozen) return Promise.resolve({ rows: [], rowCount: 0 })
      return new Promise((resolve, reject) => {
        held.push({ answer: () => resolve({ rows: [], rowCount: 0 }), fail: reject })
      })
    },
    async end() {
      ended = true
      for (const statement of held.splice(0)) statement.fail(new Error('Connection terminated'))
    },
    release() {},
  })
  const pool = { connect: async () => client as unknown as PoolClient } as unknown as Pool
  return {
    pool,
    sent,
    isEnded: () => ended,
    freeze() {
      frozen = true
    },
    thaw() {
      frozen = false
      for (const statement of held.splice(0)) statement.answer()
    },
  }
}
