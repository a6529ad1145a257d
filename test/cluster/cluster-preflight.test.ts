/**
 * Preflight across two engines joined by one Redis: a prepared turn takes the session's lock like a
 * turn, so it waits for a turn running on the other server instead of cutting it, and a final input
 * sent to the other server drops it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import type { HistoryStore } from '../../src/memory/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'
import { openClusterEngines } from '../support/open-cluster-engines.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const logger = createLogger({ level: 'silent' })
const engines = openClusterEngines(logger)
let model: MockModelServer
const patience = { timeout: 5000 }

beforeAll(async () => {
  model = await startMockModelServer()
})
beforeEach(() => model.reset())
afterAll(async () => {
  await engines.closeAll()
  await model.close()
  await deleteKeys()
})

async function startServer(historyStore: HistoryStore, overrides: CharpipeConfigInput = {}) {
  const config = makeConfig({
    ...overrides,
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0 },
    storage: { redis_url: testRedisUrl },
    cluster: { enabled: true, key_prefix: keyPrefix, lease_ms: 2000 },
  })
  return (await engines.open(config, { historyStore })).charpipe
}

const contents = async (store: HistoryStore, session: string) =>
  (await store.listMessages({ character: '小助手', session })).map(({ content }) => content)

describe.skipIf(skipReason !== undefined)('preflight in a cluster', { timeout: 20_000 }, () => {
  it('a prepared turn waits for the lock of a turn running on the other server, and does not cut it', async () => {
    const history = createInMemoryHistoryStore()
    const a = await startServer(history)
    const b = await startServer(history)
    model.script([
      { text: '这是另一台的回答，说得很慢。', chunkSize: 1, delayMs: 30 },
      { text: '这边的回答。' },
    ])
    const running = collectEvents(b.generate({ session: 'w', text: '先说这个' }))
    await expect.poll(() => model.requests.length, patience).toBe(1)
    await collectEvents(a.generate({ session: 'w', text: '然后这个', preflight: true }))
    const first = await running
    expect(doneOf(first)).toMatchObject({ interrupted: false, text: '这是另一台的回答，说得很慢。' })
    // The lock came free: the prepared turn ran, and the final input adopts it.
    await expect.poll(() => model.requests.length, patience).toBe(2)
    const second = await collectEvents(a.generate({ session: 'w', text: '然后这个。' }))
    expect(doneOf(second)).toMatchObject({ text: '这边的回答。' })
    expect(model.requests).toHaveLength(2)
    expect(await contents(history, 'w')).toEqual([
      '先说这个',
      '这是另一台的回答，说得很慢。',
      '然后这个。',
      '这边的回答。',
    ])
  })

  it('interrupt: a final input sent to the other server drops the prepared turn (its request aborted)', async () => {
    const history = createInMemoryHistoryStore()
    const a = await startServer(history)
    const b = await startServer(history)
    model.script([{ text: '不会说出来。', firstTokenDelayMs: 5000 }, { text: '另一台答了。' }])
    await collectEvents(a.generate({ session: 'd', text: '说点什么', preflight: true }))
    await expect.poll(() => model.requests.length, patience).toBe(1)
    const events = await collectEvents(b.generate({ session: 'd', text: '说点什么' }))
    expect(doneOf(events)).toMatchObject({ text: '另一台答了。' })
    await model.requests[0]!.closed
    expect(model.requests[0]!.closedEarly).toBe(true)
    expect(await contents(history, 'd')).toEqual(['说点什么', '另一台答了。'])
    await expect.poll(() => a.preflightStats?.().wastedRequests).toBe(1)
    expect(a.preflightStats?.().dropped.interrupted).toBe(1)
  })
})
