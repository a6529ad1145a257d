import { afterEach, describe, expect, it, vi } from 'vitest'
import { addStoreDeadlines } from '../memory/add-store-deadlines.js'
import { type CommitGateControl, createCommitGate } from '../memory/commit-gate.js'
import { runPostgresTransaction } from '../memory/run-postgres-transaction.js'
import type { AppendTurnOptions, HistoryStore } from '../memory/types.js'
import { createFakePostgresPool } from '../testing/create-fake-postgres-pool.js'
import { confirmTurnWrite } from './confirm-turn-write.js'

const scope = { character: 'c', session: 's' }
const timeoutMs = 1000
const never = () => new Promise<never>(() => {})

interface OpenStoreOptions {
  /** Moves the transaction's own deadline from the call's, so that either fires first. */
  transactionShiftMs: number
  /** The server freezes once the write's statements are answered: its COMMIT waits. */
  freezeAtCommit?: boolean
}

/**
 * A PostgreSQL history store's write path over a fake server, behind the deadline every store call
 * gets: two deadlines at about the same moment, the call's and the transaction's own. Reading the
 * turn back waits forever (a frozen server) until the call's deadline.
 */
function openStore({ transactionShiftMs, freezeAtCommit = false }: OpenStoreOptions) {
  const server = createFakePostgresPool()
  let readBacks = 0
  const store = {
    async appendTurn(_scope: unknown, _turn: unknown, options: AppendTurnOptions = {}) {
      const deadline = options.deadline! + transactionShiftMs
      await runPostgresTransaction(
        server.pool,
        { deadline, commitGate: options.commitGate },
        async (client) => {
          await client.query('INSERT')
          if (freezeAtCommit) server.freeze()
        },
      )
    },
    async findTurn() {
      readBacks++
      return never()
    },
    async settleTurn() {
      readBacks++
      return never()
    },
  }
  const wrapped = addStoreDeadlines(store, { store: 'history', backend: 'postgres', timeoutMs })
  return { server, store: wrapped as unknown as HistoryStore, readBacks: () => readBacks }
}

/** What `storeTurn` does: the write, then, when it fails, its outcome decided. */
async function writeAndConfirm(store: HistoryStore, commit: CommitGateControl | undefined) {
  const deadline = Date.now() + timeoutMs
  const options = { deadline, ...(commit ? { commitGate: commit.gate } : {}) }
  const failure = await store.appendTurn(scope, { turn: 't1' }, options).then(
    () => undefined,
    (error: unknown) => error,
  )
  return confirmTurnWrite({ store, scope, turn: 't1', deadline, failure, inputId: 'in-1', commit })
}

afterEach(() => {
  vi.useRealTimers()
})

describe('confirmTurnWrite: a write frozen before its COMMIT', () => {
  for (const [firstDeadline, transactionShiftMs] of [
    ["the call's", 1],
    ["the transaction's", -1],
  ] as const) {
    it(`is not stored, with no read-back, when ${firstDeadline} deadline fires first`, async () => {
      vi.useFakeTimers()
      const { server, store, readBacks } = openStore({ transactionShiftMs })
      server.freeze()
      const confirmed = writeAndConfirm(store, createCommitGate())
      await vi.advanceTimersByTimeAsync(3 * timeoutMs)
      const result = await confirmed
      expect(result).toMatchObject({ status: 'not_stored', error: { code: 'store_unavailable' } })
      expect(result.error?.message).toMatch(/^the turn was not stored: /)
      expect(readBacks()).toBe(0)
      // The server thawed later: the write still never commits.
      server.thaw()
      await vi.advanceTimersByTimeAsync(timeoutMs)
      expect(server.sent.some((statement) => statement.includes('COMMIT'))).toBe(false)
    })
  }

  it("without its commit gate, the call's deadline first left the outcome to a read-back of a frozen server", async () => {
    vi.useFakeTimers()
    const { server, store, readBacks } = openStore({ transactionShiftMs: 1 })
    server.freeze()
    const confirmed = writeAndConfirm(store, undefined)
    await vi.advanceTimersByTimeAsync(3 * timeoutMs)
    expect(await confirmed).toMatchObject({ status: 'unknown', error: { code: 'store_outcome_unknown' } })
    expect(readBacks()).toBe(1)
  })
})

describe('confirmTurnWrite: a write frozen after its COMMIT was sent', () => {
  it('is unknown when the read-back cannot reach the server, and asks for a resend with the same id', async () => {
    vi.useFakeTimers()
    const { server, store, readBacks } = openStore({ transactionShiftMs: 1, freezeAtCommit: true })
    const confirmed = writeAndConfirm(store, createCommitGate())
    await vi.advanceTimersByTimeAsync(3 * timeoutMs)
    const result = await confirmed
    expect(server.sent.some((statement) => statement.includes('COMMIT'))).toBe(true)
    expect(result).toMatchObject({ status: 'unknown', error: { code: 'store_outcome_unknown' } })
    expect(result.error?.message).toContain('send the input again with the same id ("in-1")')
    expect(readBacks()).toBe(1)
  })
})
