/**
 * Every turn stored once, and the client told the truth about it: inputs with the client's id are
 * answered again from the store when resent; a write that failed or missed its deadline is read back
 * before the client hears "stored", "not stored" or `store_outcome_unknown`; an interrupted turn
 * whose write fails after `llm_done` gets `turn_not_stored`; and the turn closes once, with at most
 * one `llm_error` and an `llm_done` carrying the text that was sent.
 */
import { describe, expect, it } from 'vitest'
import { addStoreDeadlines } from '../memory/add-store-deadlines.js'
import { createInMemoryHistoryStore } from '../memory/index.js'
import type { HistoryStore } from '../memory/types.js'
import type { CharpipeEvent, TurnNotStoredEvent } from '../shared/events.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider, type ScriptedStep } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf, typesOf, watchEvents } from '../testing/turn-events.js'
import { createCharpipe } from './create-charpipe.js'

const scope = (session = 'default') => ({ character: '小助手', session })
const never = () => new Promise<never>(() => {})
const timeoutMs = 100

type StoreOverrides = Partial<Record<keyof HistoryStore, (...args: never[]) => Promise<unknown>>>

/** The in-memory store with some methods replaced, behind the same deadlines as the real stores. */
function createStore(overrides: (inner: HistoryStore) => StoreOverrides = () => ({})) {
  const inner = createInMemoryHistoryStore()
  // Reads by turn go through findTurn here (its faults): no hasTurn shortcut.
  const store = { ...inner, hasTurn: undefined, ...overrides(inner) } as HistoryStore
  return { inner, store: addStoreDeadlines(store, { store: 'history', backend: 'memory', timeoutMs }) }
}

async function setup(steps: ScriptedStep[], historyStore: HistoryStore, parts = createFakeParts()) {
  const provider = createScriptedProvider(steps)
  const config = makeConfig({ storage: { timeout_ms: timeoutMs } })
  const charpipe = await createCharpipe(config, { parts, provider, historyStore })
  return { charpipe, provider }
}

const errorsOf = (events: CharpipeEvent[]) =>
  events.flatMap((event) => (event.type === 'llm_error' ? [event.code] : []))

describe('input ids', () => {
  it('answers a resend of a finished turn from the store: one model call, one stored turn, the same turn id', async () => {
    const { inner, store } = createStore()
    const { charpipe, provider } = await setup([{ chunks: ['好的。'] }], store)
    const first = await collectEvents(charpipe.generate({ text: '你好', id: 'input-1' }))
    const again = await collectEvents(charpipe.generate({ text: '你好', id: 'input-1' }))
    expect(provider.requests).toHaveLength(1)
    expect(doneOf(again)).toMatchObject({ text: '好的。', interrupted: false })
    expect(typesOf(again)).toEqual(['llm_chunk', 'llm_done'])
    expect(again[0]!.turn).toBe(first[0]!.turn)
    expect((await inner.listMessages(scope())).map((message) => message.content)).toEqual(['你好', '好的。'])
    await charpipe.close()
  })

  it('keeps the same id in two sessions apart, and refuses an id longer than 128 characters', async () => {
    const { inner, store } = createStore()
    const { charpipe, provider } = await setup([{ chunks: ['好的。'] }], store)
    await collectEvents(charpipe.generate({ session: 'a', text: '一', id: 'same' }))
    await collectEvents(charpipe.generate({ session: 'b', text: '二', id: 'same' }))
    expect(provider.requests).toHaveLength(2)
    expect(await inner.countTurns(scope('b'))).toBe(1)
    const refused = await collectEvents(charpipe.generate({ text: '三', id: 'x'.repeat(129) }))
    expect(refused[0]).toMatchObject({
      type: 'llm_error',
      code: 'bad_request',
      message: expect.stringMatching(/id must be/),
    })
    await charpipe.close()
  })

  it('a resend while the first is still running waits for it instead of interrupting it', async () => {
    const { inner, store } = createStore()
    const { charpipe, provider } = await setup([{ chunks: ['慢慢', '说。'], delayMs: 30 }], store)
    const first = collectEvents(charpipe.generate({ text: '讲', id: 'twice' }))
    await provider.started(0)
    const second = collectEvents(charpipe.generate({ text: '讲', id: 'twice' }))
    expect(doneOf(await first)).toMatchObject({ text: '慢慢说。', interrupted: false })
    expect(doneOf(await second)).toMatchObject({ text: '慢慢说。', interrupted: false })
    expect(provider.requests).toHaveLength(1)
    expect(await inner.countTurns(scope())).toBe(1)
    await charpipe.close()
  })

  it('does not keep a failed turn with an id, so its resend runs again', async () => {
    const { inner, store } = createStore()
    const { charpipe, provider } = await setup(
      [{ error: new Error('model down') }, { chunks: ['这次好了。'] }],
      store,
    )
    const failed = await collectEvents(charpipe.generate({ text: '你好', id: 'retry-me' }))
    expect(errorsOf(failed)).toHaveLength(1)
    const retried = await collectEvents(charpipe.generate({ text: '你好', id: 'retry-me' }))
    expect(provider.requests).toHaveLength(2)
    expect(doneOf(retried).text).toBe('这次好了。')
    expect((await inner.listMessages(scope())).map((message) => message.content)).toEqual([
      '你好',
      '这次好了。',
    ])
    await charpipe.close()
  })
})

describe('the outcome of a write is known before the client is told', () => {
  it('a write that landed but answered too late is confirmed by reading it back: no error', async () => {
    const { inner, store } = createStore((base) => ({
      appendTurn: async (...args: never[]) => {
        await (base.appendTurn as (...parameters: unknown[]) => Promise<void>)(...args)
        return never()
      },
    }))
    const { charpipe } = await setup([{ chunks: ['好的。'] }], store)
    const events = await collectEvents(charpipe.generate({ text: '你好', id: 'late' }))
    expect(errorsOf(events)).toEqual([])
    expect(await inner.countTurns(scope())).toBe(1)
    await charpipe.close()
  })

  it('a write that never landed is reported as not stored', async () => {
    const { inner, store } = createStore(() => ({ appendTurn: never }))
    const { charpipe } = await setup([{ chunks: ['好的。'] }], store)
    const events = await collectEvents(charpipe.generate({ text: '你好', id: 'lost' }))
    expect(events.at(-2)).toMatchObject({
      type: 'llm_error',
      code: 'store_unavailable',
      message: expect.stringContaining('the turn was not stored'),
    })
    expect(doneOf(events).text).toBe('好的。')
    expect(await inner.countTurns(scope())).toBe(0)
    await charpipe.close()
  })

  it('says store_outcome_unknown only when the read fails too; the resend with the same id is stored once', async () => {
    // Frozen after the turn's first look for its id (the resend check): the write and its read-back hang.
    let frozen = true
    let lookups = 0
    const { inner, store } = createStore((base) => ({
      appendTurn: (...args: never[]) =>
        frozen ? never() : (base.appendTurn as (...parameters: unknown[]) => Promise<void>)(...args),
      findTurn: (...args: never[]) =>
        frozen && ++lookups > 1
          ? never()
          : (base.findTurn as (...parameters: unknown[]) => Promise<unknown>)(...args),
    }))
    const { charpipe, provider } = await setup([{ chunks: ['好的。'] }], store)
    const events = await collectEvents(charpipe.generate({ text: '你好', id: 'unknown-1' }))
    expect(typesOf(events).slice(-2)).toEqual(['llm_error', 'llm_done'])
    expect(events.at(-2)).toMatchObject({
      code: 'store_outcome_unknown',
      message: expect.stringContaining('send the input again with the same id ("unknown-1")'),
    })
    frozen = false
    const resent = await collectEvents(charpipe.generate({ text: '你好', id: 'unknown-1' }))
    expect(errorsOf(resent)).toEqual([])
    expect(provider.requests).toHaveLength(2)
    expect(await inner.countTurns(scope())).toBe(1)
    await charpipe.close()
  })
})

describe('a resend whose store cannot say whether it has the input', () => {
  it('ends unrun with store_outcome_unknown, not "not stored": an earlier attempt may have stored it', async () => {
    let down = false
    const { inner, store } = createStore((base) => ({
      findTurn: (...args: never[]) =>
        down
          ? Promise.reject(new Error('connection closed'))
          : (base.findTurn as (...parameters: unknown[]) => Promise<unknown>)(...args),
    }))
    const { charpipe, provider } = await setup([{ chunks: ['好的。'] }], store)
    expect(errorsOf(await collectEvents(charpipe.generate({ text: '你好', id: 'stored-1' })))).toEqual([])
    down = true
    const resent = await collectEvents(charpipe.generate({ text: '你好', id: 'stored-1' }))
    expect(errorsOf(resent)).toEqual(['store_outcome_unknown'])
    expect(provider.requests).toHaveLength(1)
    expect(await inner.countTurns(scope())).toBe(1)
    await charpipe.close()
  })
})

describe('a turn whose write ends after llm_done', () => {
  it('is reported with turn_not_stored (to the caller and the event bus) when an interrupted turn is not stored', async () => {
    const { store } = createStore(() => ({ appendTurn: never }))
    const { charpipe } = await setup([{ chunks: ['第一句。', '第二'], hang: true }], store)
    const onBus: TurnNotStoredEvent[] = []
    charpipe.on('turn_not_stored', (event) => onBus.push(event as unknown as TurnNotStoredEvent))
    const reported: TurnNotStoredEvent[] = []
    const events: CharpipeEvent[] = []
    const running = charpipe.run(
      { session: 'barge', text: '讲个故事', id: 'barge-1' },
      {
        onEvent: (event) => {
          events.push(event)
          if (event.type === 'llm_sentence') void charpipe.interrupt('barge')
        },
        onTurnNotStored: (event) => reported.push(event),
      },
    )
    await running
    expect(doneOf(events)).toMatchObject({ interrupted: true })
    await expect.poll(() => reported.length, { timeout: 5000 }).toBe(1)
    expect(reported[0]).toEqual({
      type: 'turn_not_stored',
      session: 'barge',
      turn: events[0]!.turn,
      id: 'barge-1',
      code: 'store_unavailable',
      message: expect.stringContaining('the turn was not stored'),
    })
    expect(onBus).toEqual(reported)
    await charpipe.close()
  })
})

describe('the close path', () => {
  it('a turn that fails unexpectedly sends one llm_error, then llm_done with the text that was sent', async () => {
    const { store } = createStore()
    const parts = createFakeParts({
      applyDisplayRegexRules: () => {
        throw new Error('a bug')
      },
    })
    const { charpipe } = await setup([{ chunks: ['说了', '一半。'] }], store, parts)
    const events = await collectEvents(charpipe.generate({ text: '你好' }))
    expect(typesOf(events).filter((type) => type === 'llm_error')).toHaveLength(1)
    expect(events.at(-2)).toMatchObject({ type: 'llm_error', code: 'internal' })
    expect(doneOf(events).text).toBe('说了一半。')
    await charpipe.close()
  })

  it('a superseded turn whose write fails sends one llm_error, the write failure', async () => {
    const { store } = createStore(() => ({ appendTurn: never }))
    const { charpipe } = await setup([{ chunks: ['一。'] }], store)
    const watch = watchEvents(charpipe.generate({ text: '第一' }))
    const events = await collectEvents(charpipe.generate({ text: '第二' }))
    await watch.finished
    expect(errorsOf(events)).toEqual(['store_unavailable'])
    await charpipe.close()
  })
})
