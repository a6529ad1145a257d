/**
 * A regenerate whose write could not be confirmed (`store_outcome_unknown`: the write failed after
 * its commit was sent, and reading the turn back failed too) may still be running in the store:
 * it lands, and replaces the turn it regenerates, whenever its commit is applied. The memories of
 * the replaced turn must then go, whatever the order: the forget reads the history only once that
 * write can no longer land (`HistoryStore.settleTurn`, which waits for a write of the session in
 * progress). Here the store applies the write in flight right after the first read of the replaced
 * turn, or when asked to settle it: read before it lands, the replaced turn's memory would stay for
 * good. Through `createCharpipe`, over the in-memory history store and the SQLite memory store.
 */
import { describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createInMemoryHistoryStore, createSqliteMemoryStore } from '../../src/memory/index.js'
import type {
  AppendTurnOptions,
  CompletedTurn,
  ConversationScope,
  HistoryStore,
} from '../../src/memory/types.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

/** A history store whose next write stays in flight (see the file's comment). */
function createStoreWithWriteInFlight() {
  const inner = createInMemoryHistoryStore()
  let holdNextWrite = false
  let failNextRead = false
  let inFlight: { scope: ConversationScope; turn: CompletedTurn; options?: AppendTurnOptions } | undefined
  const land = async () => {
    const write = inFlight
    inFlight = undefined
    if (write) await inner.appendTurn(write.scope, write.turn, write.options)
  }
  const store: HistoryStore = {
    ...inner,
    appendTurn: async (scope, turn, options) => {
      if (!holdNextWrite) return inner.appendTurn(scope, turn, options)
      holdNextWrite = false
      // Its commit was sent; the connection then failed before the answer came.
      inFlight = { scope, turn, ...(options ? { options } : {}) }
      throw new Error('connection reset after the commit was sent')
    },
    // Reads by turn go through findTurn here (its faults): no hasTurn shortcut.
    hasTurn: undefined,
    findTurn: async (scope, turn) => {
      if (failNextRead) {
        failNextRead = false
        throw new Error('connection closed')
      }
      const found = await inner.findTurn(scope, turn)
      // The commit is applied just after the replaced turn was read.
      if (inFlight && turn === inFlight.options?.replaces) await land()
      return found
    },
    // Waits for the write in flight to commit, as PostgreSQL's read under the session's lock does.
    settleTurn: async (scope, turn) => {
      await land()
      return (await inner.findTurn(scope, turn)).length > 0
    },
  }
  const holdNext = () => {
    holdNextWrite = true
    failNextRead = true
  }
  return { inner, store, holdNext }
}

describe('a regenerate whose write is still in flight when its outcome is reported unknown', () => {
  it('forgets the memories of the turn it replaced once the write lands: no memory of a turn the history no longer has', async () => {
    const { inner, store, holdNext } = createStoreWithWriteInFlight()
    const memoryStore = createSqliteMemoryStore({ path: ':memory:' })
    const charpipe = await createCharpipe(makeConfig({ memory: { enabled: true } }), {
      provider: createScriptedProvider([{ chunks: ['Tea with lemon.'] }, { chunks: ['A black coffee.'] }]),
      historyStore: store,
      memoryStore,
    })
    const scope = { character: '小助手', session: 's' }
    const remembered = async () =>
      (await memoryStore.list({ limit: 50 })).map((memory) => memory.text).join('\n')
    try {
      const first = doneOf(await collectEvents(charpipe.generate({ session: 's', text: 'What do I drink?' })))
      await vi.waitFor(async () => expect(await remembered()).toContain('Tea with lemon.'))
      holdNext()
      const again = await collectEvents(
        charpipe.generate({ session: 's', text: 'What do I drink?', replaces: first.turn! }),
      )
      expect(again.flatMap((event) => (event.type === 'llm_error' ? [event.code] : []))).toEqual([
        'store_outcome_unknown',
      ])
    } finally {
      // Closing drains the memory work.
      await charpipe.close()
    }
    const history = await inner.listMessages(scope)
    expect(history.map((message) => message.content)).toEqual(['What do I drink?', 'A black coffee.'])
    const stored = new Set(history.map((message) => message.turn))
    const memories = await memoryStore.list({ limit: 50 })
    expect(memories.filter((memory) => !stored.has(memory.sourceTurn))).toEqual([])
    expect(await remembered()).not.toContain('Tea with lemon.')
  })
})
