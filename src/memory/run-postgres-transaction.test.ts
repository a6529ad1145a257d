import type { PoolClient } from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createFakePostgresPool } from '../testing/create-fake-postgres-pool.js'
import { createCommitGate } from './commit-gate.js'
import { runPostgresTransaction } from './run-postgres-transaction.js'
import { isWriteNotApplied } from './write-not-applied.js'

const insert = async (client: PoolClient) => {
  await client.query('INSERT')
}
const sentCommit = (sent: string[]) => sent.some((statement) => statement.includes('COMMIT'))

afterEach(() => {
  vi.useRealTimers()
})

describe('runPostgresTransaction and its commit gate', () => {
  it('given up on while a statement waits: the COMMIT is never sent, even once the server answers', async () => {
    const server = createFakePostgresPool()
    server.freeze()
    const commit = createCommitGate()
    const failure = runPostgresTransaction(server.pool, { commitGate: commit.gate }, insert).catch(
      (error: unknown) => error,
    )
    await vi.waitFor(() => expect(server.sent).toEqual(['BEGIN']))
    expect(commit.close()).toBe('not_sent')
    server.thaw()
    const error = await failure
    expect(error).toMatchObject({ message: 'the write was given up before its commit' })
    expect(isWriteNotApplied(error)).toBe(true)
    expect(server.sent).toEqual(['BEGIN', 'INSERT', 'ROLLBACK'])
  })

  it('given up on after its COMMIT was sent: it may have landed', async () => {
    const server = createFakePostgresPool()
    const commit = createCommitGate()
    const write = runPostgresTransaction(server.pool, { commitGate: commit.gate }, async (client) => {
      await insert(client)
      server.freeze()
    })
    await vi.waitFor(() => expect(server.sent.at(-1)).toBe('COMMIT'))
    expect(commit.close()).toBe('sent')
    server.thaw()
    await write
  })

  it('at its deadline, a transaction waiting before its COMMIT is ended, and certainly not applied', async () => {
    vi.useFakeTimers()
    const server = createFakePostgresPool()
    server.freeze()
    const commit = createCommitGate()
    const failure = runPostgresTransaction(
      server.pool,
      { deadline: Date.now() + 1000, commitGate: commit.gate },
      insert,
    ).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(1000)
    const error = await failure
    expect(error).toMatchObject({ message: 'the write passed its deadline (the connection was ended)' })
    expect(isWriteNotApplied(error)).toBe(true)
    expect(server.isEnded()).toBe(true)
    expect(sentCommit(server.sent)).toBe(false)
    expect(commit.close()).toBe('not_sent')
  })

  it('at its deadline, a transaction whose COMMIT was sent is ended, and may have committed', async () => {
    vi.useFakeTimers()
    const server = createFakePostgresPool()
    const failure = runPostgresTransaction(server.pool, { deadline: Date.now() + 1000 }, async (client) => {
      await insert(client)
      server.freeze()
    }).catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(1000)
    const error = await failure
    expect(sentCommit(server.sent)).toBe(true)
    expect(error).toMatchObject({ message: 'the write passed its deadline (the connection was ended)' })
    expect(isWriteNotApplied(error)).toBe(false)
  })
})
