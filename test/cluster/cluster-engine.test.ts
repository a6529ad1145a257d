/** Two engines joined by one Redis, as two servers would be: the turn lock and interrupts between them. */
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import type { HistoryStore } from '../../src/memory/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeParts } from '../../src/testing/create-fake-engine-parts.js'
import { createScriptedProvider, type ScriptedStep } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { doneOf, watchEvents } from '../../src/testing/turn-events.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'
import { openClusterEngines } from '../support/open-cluster-engines.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const logger = createLogger({ level: 'silent' })
const engines = openClusterEngines(logger)

async function startServer(
  steps: ScriptedStep[],
  historyStore: HistoryStore,
  overrides: CharpipeConfigInput = {},
) {
  const config = makeConfig({
    ...overrides,
    storage: { redis_url: testRedisUrl },
    cluster: { enabled: true, key_prefix: keyPrefix, lease_ms: 2000, ...overrides.cluster },
  })
  const provider = createScriptedProvider(steps)
  const { charpipe, cluster } = await engines.open(config, {
    parts: createFakeParts(),
    provider,
    historyStore,
  })
  return { charpipe, provider, cluster }
}

afterAll(async () => {
  await engines.closeAll()
  await deleteKeys()
})

const contents = async (store: HistoryStore, session: string) =>
  (await store.listMessages({ character: '小助手', session })).map(
    ({ role, content }) => `${role}:${content}`,
  )

describe.skipIf(skipReason !== undefined)('engines in one cluster', { timeout: 20_000 }, () => {
  it('queue: a turn of the session sent to the other server waits until the running one is stored', async () => {
    const history = createInMemoryHistoryStore()
    const queue = { conversation: { on_new_input: 'queue' as const } }
    const a = await startServer([{ chunks: ['一。', '二三。'], delayMs: 400 }], history, queue)
    const b = await startServer([{ chunks: ['二。'] }], history, queue)
    const first = watchEvents(a.charpipe.generate({ text: 'a', session: 'q' }))
    await a.provider.started(0)
    const second = watchEvents(b.charpipe.generate({ text: 'b', session: 'q' }))
    // B had not asked its model yet when A's turn ended: A's turn held the session. Checked as
    // A's `llm_done` arrives: once A's stream has ended, its lock is released and B may have begun.
    await first.until('llm_done')
    expect(b.provider.requests).toHaveLength(0)
    const firstDone = doneOf(await first.finished)
    expect(firstDone).toMatchObject({ text: '一。二三。', interrupted: false })
    expect(doneOf(await second.finished)).toMatchObject({ text: '二。', interrupted: false })
    expect(await contents(history, 'q')).toEqual([
      'user:a',
      'assistant:一。二三。',
      'user:b',
      'assistant:二。',
    ])
    expect(b.cluster.stats().lockWaits).toBe(1)
    // B's model saw A's stored turn.
    expect(b.provider.requests[0]!.messages.map((message) => message.content)).toContain('一。二三。')
  })

  it("say on the other server waits for the running turn's lock: its words are stored after the reply", async () => {
    const history = createInMemoryHistoryStore()
    const queue = { conversation: { on_new_input: 'queue' as const } }
    const a = await startServer([{ chunks: ['一。', '二三。'], delayMs: 400 }], history, queue)
    const b = await startServer([], history, queue)
    const heard: { type: string; turn?: string }[] = []
    b.charpipe.sessions.follow({ session: 's', onEvent: (event) => heard.push(event) })
    const first = watchEvents(a.charpipe.generate({ text: 'a', session: 's' }))
    await a.provider.started(0)
    const { turn } = b.charpipe.sessions.say({ session: 's', text: '插一句。' })
    const firstDone = doneOf(await first.finished)
    expect(firstDone).toMatchObject({ text: '一。二三。', interrupted: false })
    await vi.waitFor(
      () => expect(heard).toContainEqual(expect.objectContaining({ type: 'llm_done', turn })),
      {
        timeout: 5000,
        interval: 20,
      },
    )
    // Never between A's input and its reply.
    expect(await contents(history, 's')).toEqual(['user:a', 'assistant:一。二三。', 'assistant:插一句。'])
    expect(b.cluster.stats().lockWaits).toBe(1)
  })

  it('interrupt: a new input on the other server stops the running turn there, then runs', async () => {
    const history = createInMemoryHistoryStore()
    const a = await startServer([{ chunks: ['旧。'], hang: true }], history)
    const b = await startServer([{ chunks: ['新。'] }], history)
    const first = watchEvents(a.charpipe.generate({ text: 'a', session: 'i' }))
    await first.until('llm_sentence')
    const second = watchEvents(b.charpipe.generate({ text: 'b', session: 'i' }))
    const firstEvents = await first.finished
    expect(doneOf(firstEvents).interrupted).toBe(true)
    expect(firstEvents).toContainEqual(expect.objectContaining({ code: 'interrupted_by_new_input' }))
    const secondEvents = await second.finished
    expect(secondEvents.filter((event) => event.type === 'llm_error')).toEqual([])
    expect(doneOf(secondEvents).text).toBe('新。')
    expect(await contents(history, 'i')).toEqual(['user:a', 'assistant:旧。', 'user:b', 'assistant:新。'])
    expect(a.cluster.stats().remoteInterrupts).toBe(1)
  })

  it('an interrupt sent to another server stops the turn where it runs, stored as far as it was heard', async () => {
    const history = createInMemoryHistoryStore()
    const a = await startServer([{ chunks: ['你好呀。', '今天天气不错。'], hang: true }], history)
    const b = await startServer([], history)
    const first = watchEvents(a.charpipe.generate({ text: 'hi', session: 'x' }))
    await first.until('llm_sentence')
    await b.charpipe.interrupt('x', { heard: '你好' })
    expect(doneOf(await first.finished).interrupted).toBe(true)
    // The write of an interrupted turn goes on after its llm_done.
    await vi.waitFor(async () => expect(await contents(history, 'x')).toHaveLength(2), {
      timeout: 5000,
      interval: 50,
    })
    const stored = await history.listMessages({ character: '小助手', session: 'x' })
    expect(stored[1]).toMatchObject({ role: 'assistant', content: '你好', interrupted: true })
  })

  it('a resend of a stored input is answered from the store while another turn holds the lock; a new one is store_outcome_unknown', async () => {
    const history = createInMemoryHistoryStore()
    const queue = { conversation: { on_new_input: 'queue' as const } }
    const a = await startServer([{ chunks: ['存了。'] }, { chunks: ['长。'], hang: true }], history, queue)
    const b = await startServer([{ chunks: ['不该跑。'] }], history, {
      ...queue,
      cluster: { lock_wait_ms: 300 },
    })
    // The first attempt was stored; its answer is taken to be lost.
    doneOf(await watchEvents(a.charpipe.generate({ text: 'a', session: 'r', id: 'stored' })).finished)
    const holding = watchEvents(a.charpipe.generate({ text: 'hold', session: 'r' }))
    await holding.until('llm_sentence')
    const resent = await watchEvents(b.charpipe.generate({ text: 'a', session: 'r', id: 'stored' })).finished
    expect(resent.filter((event) => event.type === 'llm_error')).toEqual([])
    expect(doneOf(resent)).toMatchObject({ text: '存了。', interrupted: false })
    // Never stored and the lock not to be had: not "not stored" (an earlier attempt may be on its way).
    const fresh = await watchEvents(b.charpipe.generate({ text: 'c', session: 'r', id: 'fresh' })).finished
    expect(fresh.filter((event) => event.type === 'llm_error')).toEqual([
      expect.objectContaining({ code: 'store_outcome_unknown' }),
    ])
    expect(b.provider.requests).toHaveLength(0)
    await a.charpipe.interrupt('r')
  })
})
