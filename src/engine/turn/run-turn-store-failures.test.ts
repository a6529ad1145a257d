/**
 * A history store that is down or stops answering must not hold a turn: the turn ends with
 * `store_unavailable` and one `llm_done` within the store deadline, a complete reply's `llm_done`
 * tells its write's outcome even when an interrupt arrives while it is written, and
 * `history.continue_without_store` lets the character answer without its history.
 */
import { describe, expect, it, vi } from 'vitest'
import { addStoreDeadlines } from '../../memory/add-store-deadlines.js'
import { createInMemoryHistoryStore } from '../../memory/index.js'
import type { HistoryStore } from '../../memory/types.js'
import type { CharpipeEvent } from '../../shared/events.js'
import { createScriptedProvider } from '../../testing/create-scripted-provider.js'
import { makeConfig } from '../../testing/create-turn-harness.js'
import { collectEvents, doneOf, typesOf } from '../../testing/turn-events.js'
import { createCharpipe } from '../create-charpipe.js'

const never = () => new Promise<never>(() => {})

/** An in-memory store whose chosen methods never answer, behind the same deadlines as real stores. */
function createFrozenStore(frozen: (keyof HistoryStore)[], timeoutMs = 100): HistoryStore {
  const store: HistoryStore = { ...createInMemoryHistoryStore() }
  for (const name of frozen) (store as unknown as Record<string, unknown>)[name] = never
  return addStoreDeadlines(store, { store: 'history', backend: 'memory', timeoutMs })
}

async function setup(historyStore: HistoryStore, history: Record<string, unknown> = {}) {
  const provider = createScriptedProvider([{ chunks: ['好的。'] }])
  const config = makeConfig({ history: { store: 'memory', ...history } })
  const charpipe = await createCharpipe(config, { provider, historyStore })
  return { charpipe, provider }
}

describe('a turn while the history store is unavailable', () => {
  it('ends with store_unavailable and llm_done, without calling the model (default)', async () => {
    const { charpipe, provider } = await setup(createFrozenStore(['loadRecent', 'appendTurn']))
    const events = await collectEvents(charpipe.generate({ text: '你好' }))
    expect(typesOf(events)).toEqual(['llm_error', 'llm_done'])
    expect(events[0]).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('the history store (memory) did not answer within 100 ms'),
    })
    expect(provider.requests).toHaveLength(0)
    await charpipe.close()
  })

  it('answers without history with history.continue_without_store, then reports the failed write', async () => {
    const { charpipe, provider } = await setup(createFrozenStore(['loadRecent', 'appendTurn']), {
      continue_without_store: true,
    })
    const events = await collectEvents(charpipe.generate({ text: '你好' }))
    expect(provider.requests).toHaveLength(1)
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(events.at(-2)).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('the turn was not stored'),
    })
    expect(doneOf(events).text).toBe('好的。')
    await charpipe.close()
  })

  it('an interrupt while a complete reply is written: llm_done waits for the write and tells its outcome', async () => {
    // The reported case: llm_done {interrupted: false} with no error, then turn_not_stored.
    let onWrite = () => {}
    const writing = new Promise<void>((resolve) => {
      onWrite = resolve
    })
    const store: HistoryStore = {
      ...createInMemoryHistoryStore(),
      appendTurn: () => {
        onWrite()
        return never()
      },
    }
    const { charpipe } = await setup(
      addStoreDeadlines(store, { store: 'history', backend: 'memory', timeoutMs: 100 }),
    )
    const notStored: unknown[] = []
    charpipe.on('turn_not_stored', (event) => notStored.push(event))
    void writing.then(() => charpipe.interrupt('default'))
    const events: CharpipeEvent[] = await collectEvents(charpipe.generate({ text: '你好', id: 'complete-1' }))
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(events.at(-2)).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('not stored'),
    })
    expect(events.at(-1)).toMatchObject({ text: '好的。', interrupted: false })
    await charpipe.close()
    expect(notStored).toEqual([])
  })

  it('an interrupt while a complete reply is written: an error-free llm_done means it is stored', async () => {
    let finishWrite: (() => void) | undefined
    const inner = createInMemoryHistoryStore()
    const store: HistoryStore = {
      ...inner,
      appendTurn: async (...args) => {
        await new Promise<void>((resolve) => {
          finishWrite = resolve
        })
        return inner.appendTurn(...args)
      },
    }
    const { charpipe } = await setup(
      addStoreDeadlines(store, { store: 'history', backend: 'memory', timeoutMs: 600_000 }),
    )
    const events: CharpipeEvent[] = []
    const running = charpipe.run(
      { text: '你好', id: 'complete-2' },
      { onEvent: (event) => events.push(event) },
    )
    await vi.waitFor(() => expect(finishWrite).toBeDefined(), { timeout: 10_000 })
    // The interrupt resolves once the turn has ended, which is after its write.
    const interrupted = charpipe.interrupt('default')
    await Promise.resolve()
    expect(typesOf(events)).not.toContain('llm_done')
    finishWrite?.()
    await interrupted
    await running
    expect(typesOf(events)).not.toContain('llm_error')
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', interrupted: false })
    const scope = { character: '小助手', session: 'default' }
    expect((await inner.listMessages(scope)).map((message) => message.content)).toEqual(['你好', '好的。'])
    await charpipe.close()
  })
})
