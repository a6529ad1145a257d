import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createInMemoryHistoryStore, createSqliteMemoryStore } from '../memory/index.js'
import type { HistoryStore } from '../memory/types.js'
import { createLogger } from '../shared/logger.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import type { EngineRuntime } from './engine-runtime.js'
import { forgetUnkeptMemories } from './forget-unkept-memories.js'

/** A history that does not have the turn, and fails every read until `back()` (a store restarting). */
function createHistoryAway() {
  const inner = createInMemoryHistoryStore()
  let away = true
  let reads = 0
  const store: HistoryStore = {
    ...inner,
    // Reads by turn go through findTurn here (its faults): no hasTurn shortcut.
    hasTurn: undefined,
    findTurn: async (...args) => {
      reads++
      if (away) throw new Error('connect ECONNREFUSED')
      return inner.findTurn(...args)
    },
  }
  return { store, back: () => (away = false), reads: () => reads }
}

async function setup() {
  const history = createHistoryAway()
  const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
  await memoryStore.add({
    scope: 's',
    text: 'user: tea?\nassistant: Tea with lemon.',
    sourceTurn: 'replaced',
  })
  const runtime = { config: makeConfig({ memory: { enabled: true } }), historyStore: history.store }
  const closing = new AbortController()
  const forgetting = forgetUnkeptMemories(
    {
      turn: 'regenerated',
      input: { session: 's', text: 'tea?', replaces: 'replaced' },
      runtime: runtime as unknown as EngineRuntime,
      logger: createLogger({ level: 'silent' }),
      closing: closing.signal,
    },
    memoryStore,
  )
  const remembered = async () => (await memoryStore.list({ scope: 's' })).map((memory) => memory.sourceTurn)
  return { history, forgetting, closing, remembered }
}

describe('forgetUnkeptMemories while the stores do not answer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('asks again for as long as the engine is open: a store back after 30 s still has the memory of a replaced turn forgotten', async () => {
    const { history, forgetting, remembered } = await setup()
    await vi.advanceTimersByTimeAsync(30_000)
    expect(await remembered()).toEqual(['replaced'])
    history.back()
    await vi.advanceTimersByTimeAsync(5_000)
    await forgetting
    expect(await remembered()).toEqual([])
  })

  it('stops soon once the engine closes, so that a store gone for good cannot hold the close', async () => {
    const { history, forgetting, closing, remembered } = await setup()
    await vi.advanceTimersByTimeAsync(20_000)
    closing.abort()
    let ended = false
    void forgetting.then(() => {
      ended = true
    })
    await vi.advanceTimersByTimeAsync(14_000)
    expect(ended).toBe(true)
    const reads = history.reads()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(history.reads()).toBe(reads)
    expect(await remembered()).toEqual(['replaced'])
  })
})
