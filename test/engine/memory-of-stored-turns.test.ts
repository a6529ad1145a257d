/**
 * Long-term memory keeps only turns the history keeps: a turn whose write failed, or whose outcome
 * could not be known, leaves no memory, whether it was remembered as it is or through fact
 * extraction, and whether its write ended before `llm_done` or after it (a reply cut short). A
 * write that failed but is found stored when read back counts as stored. Through `createCharpipe`
 * over a history store that fails on command and the SQLite memory store.
 */
import { describe, expect, it, vi } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createCharpipe } from '../../src/engine/index.js'
import { addStoreDeadlines } from '../../src/memory/add-store-deadlines.js'
import { createInMemoryHistoryStore, createSqliteMemoryStore } from '../../src/memory/index.js'
import type { HistoryStore } from '../../src/memory/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { createScriptedProvider, type ScriptedStep } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents } from '../../src/testing/turn-events.js'

const timeoutMs = 100
const never = () => new Promise<never>(() => {})

/** How the store's next writes (and reads back) behave. */
interface StoreFaults {
  /** The write never answers: nothing is stored. */
  writeHangs?: boolean
  /** The write lands, then fails: found when read back. */
  writeLandsThenFails?: boolean
  /** Reading a turn back fails too: the outcome is unknown. */
  readBackFails?: boolean
}

function createFailingStore(faults: StoreFaults) {
  const inner = createInMemoryHistoryStore()
  const store: HistoryStore = {
    ...inner,
    appendTurn: async (...args) => {
      if (faults.writeHangs) return never()
      await inner.appendTurn(...args)
      if (faults.writeLandsThenFails) throw new Error('connection reset after the write')
    },
    // Reads by turn go through findTurn here (its faults): no hasTurn shortcut.
    hasTurn: undefined,
    findTurn: async (...args) => {
      if (faults.readBackFails) throw new Error('connection closed')
      return inner.findTurn(...args)
    },
  }
  return { inner, store: addStoreDeadlines(store, { store: 'history', backend: 'memory', timeoutMs }) }
}

async function setup(faults: StoreFaults, steps: ScriptedStep[], config: CharpipeConfigInput = {}) {
  const { inner, store } = createFailingStore(faults)
  const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
  const provider = createScriptedProvider(steps)
  const charpipe = await createCharpipe(
    makeConfig({ memory: { enabled: true }, storage: { timeout_ms: timeoutMs }, ...config }),
    { provider, historyStore: store, memoryStore },
  )
  // Closing drains the memory work of finished turns; the memory store is the test's, still open.
  const remembered = async () => {
    await charpipe.close()
    return (await memoryStore.list({ limit: 50 })).map((memory) => memory.text).join('\n')
  }
  return { charpipe, inner, provider, remembered }
}

const errorsOf = (events: CharpipeEvent[]) =>
  events.flatMap((event) => (event.type === 'llm_error' ? [event.code] : []))

describe('long-term memory of a turn the history did not keep', () => {
  it('a write that never landed (store_unavailable) leaves no memory', async () => {
    const { charpipe, inner, remembered } = await setup({ writeHangs: true }, [
      { chunks: ['Tea with lemon.'] },
    ])
    const events = await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' }))
    expect(errorsOf(events)).toEqual(['store_unavailable'])
    expect(await inner.listMessages({ character: '小助手', session: 's' })).toEqual([])
    expect(await remembered()).not.toContain('Tea with lemon.')
  })

  it('a write whose outcome is unknown (store_outcome_unknown) leaves no memory', async () => {
    const { charpipe, remembered } = await setup({ writeHangs: true, readBackFails: true }, [
      { chunks: ['Tea with lemon.'] },
    ])
    const events = await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' }))
    expect(errorsOf(events)).toEqual(['store_outcome_unknown'])
    expect(await remembered()).not.toContain('Tea with lemon.')
  })

  it('no fact is extracted from a turn that was not stored (memory.extract: true)', async () => {
    const extraction = JSON.stringify({ memory: [{ event: 'add', text: 'The user drinks tea.' }] })
    const { charpipe, provider, remembered } = await setup(
      { writeHangs: true },
      [{ chunks: ['Tea with lemon.'] }, { chunks: [extraction] }],
      { memory: { enabled: true, extract: true } },
    )
    await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' }))
    const texts = await remembered()
    expect(texts).not.toContain('drinks tea')
    expect(provider.requests).toHaveLength(1)
  })

  it('a reply cut short whose write fails after llm_done leaves no memory', async () => {
    const { charpipe, remembered } = await setup({ writeHangs: true }, [
      { chunks: ['First sentence. ', 'Second'], hang: true },
    ])
    const notStored: unknown[] = []
    await charpipe.run(
      { session: 'barge', text: 'Tell me a story' },
      {
        onEvent: (event) => {
          if (event.type === 'llm_sentence') void charpipe.interrupt('barge')
        },
        onTurnNotStored: (event) => notStored.push(event),
      },
    )
    // The write ends after llm_done, and says so then.
    await vi.waitFor(() => expect(notStored).toHaveLength(1), { timeout: 5000 })
    expect(await remembered()).not.toContain('First sentence.')
  })
})

describe('long-term memory of a turn the history kept', () => {
  it('a write that failed but is found stored when read back is remembered', async () => {
    const { charpipe, inner, remembered } = await setup({ writeLandsThenFails: true }, [
      { chunks: ['Tea with lemon.'] },
    ])
    const events = await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' }))
    expect(errorsOf(events)).toEqual([])
    expect(await inner.countTurns({ character: '小助手', session: 's' })).toBe(1)
    expect(await remembered()).toContain('Tea with lemon.')
  })

  it('a reply cut short and stored after llm_done is remembered as it was heard', async () => {
    const { charpipe, remembered } = await setup({}, [{ chunks: ['First sentence. ', 'Second'], hang: true }])
    await charpipe.run(
      { session: 'barge', text: 'Tell me a story' },
      {
        onEvent: (event) => {
          if (event.type === 'llm_sentence') void charpipe.interrupt('barge')
        },
      },
    )
    expect(await remembered()).toContain('First sentence.')
  })
})

describe('a run of turns whose writes fail now and then', () => {
  it('every memory is of a stored turn, and every stored turn is remembered (60 turns, 1 in 5 writes refused, 1 in 10 hung)', async () => {
    // A fixed sequence of faults, the same every run.
    let seed = 7
    const roll = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const inner = createInMemoryHistoryStore()
    const store: HistoryStore = {
      ...inner,
      appendTurn: async (...args) => {
        const fault = roll()
        if (fault < 0.2) throw new Error('the write was refused')
        if (fault < 0.3) return never()
        return inner.appendTurn(...args)
      },
    }
    const turns = 60
    const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
    const charpipe = await createCharpipe(
      makeConfig({ memory: { enabled: true }, storage: { timeout_ms: timeoutMs } }),
      {
        provider: createScriptedProvider(
          Array.from({ length: turns }, (_, index) => ({ chunks: [`Reply ${index}.`] })),
        ),
        historyStore: addStoreDeadlines(store, { store: 'history', backend: 'memory', timeoutMs }),
        memoryStore,
      },
    )
    for (let index = 0; index < turns; index++)
      await collectEvents(charpipe.generate({ session: 's', text: `Input ${index}` }))
    await charpipe.close()
    const stored = new Set(
      (await inner.listMessages({ character: '小助手', session: 's' })).map((message) => message.turn),
    )
    const remembered = new Set((await memoryStore.list({ limit: 500 })).map((memory) => memory.sourceTurn))
    // The faults did happen: some turns are not stored.
    expect(stored.size).toBeGreaterThan(0)
    expect(stored.size).toBeLessThan(turns)
    expect([...remembered].filter((turn) => !stored.has(turn))).toEqual([])
    expect([...stored].filter((turn) => !remembered.has(turn))).toEqual([])
  })
})
