/**
 * A turn's long-term memory is written off the session's lane: with a memory store that does not
 * answer (a frozen PostgreSQL, an `add` that never returns), the session's next turn asks the model
 * at once, without waiting for the previous turn's memory; the memory is still written once the
 * store answers, and a write that fails is logged. A memory that lands after its turn was replaced
 * (a regenerate on another server) is forgotten. Time stands still (a manual clock): nothing here
 * is waited out.
 */
import { describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { addStoreDeadlines } from '../../src/memory/add-store-deadlines.js'
import { createInMemoryHistoryStore, createSqliteMemoryStore } from '../../src/memory/index.js'
import type { AddMemoryInput, HistoryStore, MemoryRecord, MemoryStore } from '../../src/memory/types.js'
import { captureLogger } from '../../src/providers/test-helpers.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { createManualClock } from '../../src/testing/create-manual-clock.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

/** A memory store whose `add` is held (no answer) until the test lets it go, or fails when told. */
function createHeldMemoryStore(options: { fails?: boolean } = {}) {
  const inner = createSqliteMemoryStore({ path: ':memory:' })
  const added: AddMemoryInput[] = []
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  const store: MemoryStore = {
    ...inner,
    add: async (input): Promise<MemoryRecord> => {
      added.push(input)
      if (options.fails) throw new Error('connection reset')
      await released
      return inner.add(input)
    },
  }
  return { inner, store, added, release }
}

async function openEngine(store: MemoryStore) {
  const log = captureLogger()
  const provider = createScriptedProvider([{ chunks: ['Tea with lemon.'] }, { chunks: ['Green tea.'] }])
  const charpipe = await createCharpipe(makeConfig({ memory: { enabled: true } }), {
    clock: createManualClock(),
    provider,
    memoryStore: store,
    logger: log.logger,
  })
  const turn = async (text: string) => {
    const events: CharpipeEvent[] = []
    await charpipe.run({ session: 's', text }, { onEvent: (event) => events.push(event) })
    return events
  }
  return { charpipe, provider, turn, log }
}

describe('long-term memory written off the session lane', () => {
  it("the next turn asks the model without waiting for the previous turn's memory write", async () => {
    const memory = createHeldMemoryStore()
    const { charpipe, provider, turn } = await openEngine(memory.store)
    const first = await turn('What do I drink?')
    expect(first.at(-1)).toMatchObject({ type: 'llm_done' })
    // The first turn's memory write has started and has no answer.
    await expect.poll(() => memory.added.length).toBe(1)

    const second = await turn('And in the evening?')
    expect(provider.requests).toHaveLength(2)
    expect(second.at(-1)).toMatchObject({ type: 'llm_done' })
    expect(second.some((event) => event.type === 'llm_error')).toBe(false)
    // Still the one write, held: the second turn's memory waits behind it, in order.
    expect(memory.added.map((input) => input.text)).toEqual([expect.stringContaining('What do I drink?')])

    memory.release()
    await charpipe.close()
    const texts = (await memory.inner.list({ limit: 10 })).map((record) => record.text).reverse()
    expect(texts).toEqual([
      expect.stringContaining('What do I drink?'),
      expect.stringContaining('And in the evening?'),
    ])
  })

  it.each([
    { memory: 'the conversation', perPerson: false },
    { memory: "the speaker's own (memory.per_person)", perPerson: true },
  ])(
    'a memory that lands after a regenerate on another server replaced its turn is forgotten: in $memory memory',
    async ({ perPerson }) => {
      // Two servers over one history and one memory store: the first still writes the memory of its
      // turn when the second regenerates that turn (and forgets what memory had of it: nothing yet).
      const history = createInMemoryHistoryStore()
      const memory = createHeldMemoryStore()
      const open = (reply: string) =>
        createCharpipe(makeConfig({ memory: { enabled: true, per_person: perPerson } }), {
          clock: createManualClock(),
          provider: createScriptedProvider([{ chunks: [reply] }]),
          historyStore: history,
          memoryStore: memory.store,
        })
      const first = await open('Tea with lemon.')
      const second = await open('Coffee, black.')
      const speaker = { id: 'alice', name: 'Alice' }
      const done = doneOf(
        await collectEvents(first.generate({ session: 's', text: 'What do I drink?', speaker })),
      )
      await expect.poll(() => memory.added.length).toBe(1)
      const again = await collectEvents(
        second.generate({ session: 's', text: 'What do I drink?', speaker, replaces: done.turn! }),
      )
      expect(again.some((event) => event.type === 'llm_error')).toBe(false)
      memory.release()
      await second.close()
      await first.close()
      const kept = await memory.inner.list({ limit: 10 })
      expect(kept.map((record) => record.text)).toEqual([expect.stringContaining('Coffee, black.')])
      // Where the memories went: the person's own scope with per_person, the conversation's otherwise.
      expect(kept[0]!.scope === 's').toBe(!perPerson)
    },
  )

  it("a regenerate whose history look-up fails at first still forgets the replaced turn's memory", async () => {
    const inner = createInMemoryHistoryStore()
    let failingFinds = 0
    const history: HistoryStore = {
      ...inner,
      // Reads by turn go through findTurn here (its faults): no hasTurn shortcut.
      hasTurn: undefined,
      findTurn: async (...args) => {
        if (failingFinds > 0) {
          failingFinds--
          throw new Error('connection reset')
        }
        return inner.findTurn(...args)
      },
    }
    const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
    const charpipe = await createCharpipe(makeConfig({ memory: { enabled: true } }), {
      clock: createManualClock(),
      provider: createScriptedProvider([{ chunks: ['Tea with lemon.'] }, { chunks: ['Coffee, black.'] }]),
      historyStore: history,
      memoryStore,
    })
    const done = doneOf(await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' })))
    await expect.poll(async () => (await memoryStore.list({ limit: 10 })).length).toBe(1)
    // The regenerate's memory work cannot tell at first whether the earlier turn was replaced.
    failingFinds = 2
    await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?', replaces: done.turn! }))
    await charpipe.close()
    expect(failingFinds).toBe(0)
    const texts = (await memoryStore.list({ limit: 10 })).map((record) => record.text)
    expect(texts).toEqual([expect.stringContaining('Coffee, black.')])
  })

  it("a regenerate whose write landed but could not be confirmed still forgets the replaced turn's memory", async () => {
    const inner = createInMemoryHistoryStore()
    const faults = { writeLandsThenFails: false, findFails: false }
    const history: HistoryStore = addStoreDeadlines(
      {
        ...inner,
        appendTurn: async (...args) => {
          await inner.appendTurn(...args)
          if (faults.writeLandsThenFails) throw new Error('connection reset after the write')
        },
        hasTurn: undefined,
        findTurn: async (...args) => {
          if (faults.findFails) throw new Error('connection closed')
          return inner.findTurn(...args)
        },
      },
      { store: 'history', backend: 'memory', timeoutMs: 100 },
    )
    const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
    const charpipe = await createCharpipe(makeConfig({ memory: { enabled: true } }), {
      clock: createManualClock(),
      provider: createScriptedProvider([{ chunks: ['Tea with lemon.'] }, { chunks: ['Coffee, black.'] }]),
      historyStore: history,
      memoryStore,
    })
    const done = doneOf(await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' })))
    await expect.poll(async () => (await memoryStore.list({ limit: 10 })).length).toBe(1)
    Object.assign(faults, { writeLandsThenFails: true, findFails: true })
    const events: CharpipeEvent[] = []
    await charpipe.run(
      { session: 's', text: 'What do I drink?', replaces: done.turn! },
      {
        onEvent: (event) => {
          events.push(event)
          // The store answers again once the client has been told.
          if (event.type === 'llm_done')
            Object.assign(faults, { writeLandsThenFails: false, findFails: false })
        },
      },
    )
    expect(events.filter((event) => event.type === 'llm_error')).toMatchObject([
      { code: 'store_outcome_unknown' },
    ])
    await charpipe.close()
    expect(await inner.findTurn({ character: '小助手', session: 's' }, done.turn!)).toEqual([])
    expect(await memoryStore.list({ limit: 10 })).toEqual([])
  })

  it('a memory write that fails is logged, and the session goes on', async () => {
    const memory = createHeldMemoryStore({ fails: true })
    const { charpipe, provider, turn, log } = await openEngine(memory.store)
    await turn('What do I drink?')
    const second = await turn('And in the evening?')
    expect(provider.requests).toHaveLength(2)
    expect(second.some((event) => event.type === 'llm_error')).toBe(false)
    await charpipe.close()
    expect(memory.added).toHaveLength(2)
    const failures = log.lines.filter((line) => line.msg === 'storing the turn in long-term memory failed')
    expect(failures).toHaveLength(2)
  })
})
