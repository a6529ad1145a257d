/**
 * Input order across servers holds by construction: the inputs' numbers decide. An older input
 * whose turn comes to the lock after a newer input's took it (its server was busy, and it stopped
 * counting as pending meanwhile) is refused for good, with `interrupted_by_new_input`, never a code
 * that asks for a resend; and sent again with the same id it is refused again, never stored after
 * the newer one; unless another attempt of it (its resend, on the other server) stored it before
 * the newer one: then it is stored, and answered from the store. Two engines joined by one Redis,
 * one history; the older input's server reaches its lock only when the test lets it (a busy
 * server), and its input is withdrawn meanwhile, as a pending input whose wait ran out is.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { type Cluster, connectCluster } from '../../src/cluster/connect-cluster.js'
import type { TurnCoordinator } from '../../src/cluster/turn-coordinator.js'
import { createCharpipe } from '../../src/engine/create-charpipe.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import type { HistoryStore } from '../../src/memory/types.js'
import type { CharpipeEvent, TurnNotStoredEvent } from '../../src/shared/events.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeParts } from '../../src/testing/create-fake-engine-parts.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
if (skipReason) console.warn(`late input test skipped: ${skipReason}`)
const logger = createLogger({ level: 'silent' })
const opened: { charpipe: Charpipe; cluster: Cluster }[] = []

afterAll(async () => {
  for (const { charpipe, cluster } of opened) {
    await charpipe.close()
    await cluster.close()
  }
  await deleteKeys()
})

/**
 * A server slow to reach its lock: its takes wait for `open()`; the inputs it numbers are kept.
 * With `deaf`, the other servers' interrupts and new inputs never reach it (lost messages).
 */
function delayTakes(coordinator: TurnCoordinator, deaf: boolean) {
  let open = () => {}
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  const numbered: { lane: string; order: number }[] = []
  const delayed: TurnCoordinator = {
    ...coordinator,
    async announceNewInput(lane) {
      const order = await coordinator.announceNewInput(lane)
      numbered.push({ lane, order })
      return order
    },
    async acquire(...args) {
      await opened
      return coordinator.acquire(...args)
    },
    ...(deaf ? { onInterrupt: async () => {} } : {}),
  }
  return { delayed, numbered, open }
}

async function startServer(history: HistoryStore, reply: string, slow?: 'slow' | 'slow and deaf') {
  const config = makeConfig({
    conversation: { on_new_input: 'interrupt' },
    storage: { redis_url: testRedisUrl },
    cluster: { enabled: true, key_prefix: keyPrefix, lease_ms: 2000 },
  })
  const cluster = await connectCluster(config, logger)
  const takes = delayTakes(cluster.coordinator, slow === 'slow and deaf')
  const provider = createScriptedProvider([{ chunks: [reply] }, { chunks: [reply] }])
  const charpipe = await createCharpipe(config, {
    parts: createFakeParts(),
    provider,
    historyStore: history,
    cluster: slow ? { ...cluster, coordinator: takes.delayed } : cluster,
    logger,
  })
  opened.push({ charpipe, cluster })
  return { charpipe, cluster, provider, takes }
}

const contents = async (store: HistoryStore, session: string) =>
  (await store.listMessages({ character: '小助手', session })).map(
    ({ role, content }) => `${role}:${content}`,
  )
const errorsOf = (events: CharpipeEvent[]) =>
  events.flatMap((event) => (event.type === 'llm_error' ? [event] : []))

describe.skipIf(skipReason !== undefined)(
  'an older input that reaches its lock after a newer one took it',
  {
    timeout: 20_000,
  },
  () => {
    it('is refused for good (interrupted_by_new_input, no resend asked), and refused again when sent again', async () => {
      const history = createInMemoryHistoryStore()
      const slow = await startServer(history, '旧。', 'slow')
      const fast = await startServer(history, '新。')
      const notStored: TurnNotStoredEvent[] = []
      const session = 'late'

      const olderEvents: CharpipeEvent[] = []
      const older = slow.charpipe.run(
        { session, text: '先说的', id: 'older' },
        { onEvent: (event) => olderEvents.push(event), onTurnNotStored: (event) => notStored.push(event) },
      )
      await vi.waitFor(() => expect(slow.takes.numbered).toHaveLength(1))
      // Its wait ran out on the busy server: it no longer holds later inputs back.
      const [{ lane, order }] = slow.takes.numbered as [{ lane: string; order: number }]
      await slow.cluster.coordinator.withdrawInput(lane, order)

      const newer = await collectEvents(fast.charpipe.generate({ session, text: '后说的', id: 'newer' }))
      expect(errorsOf(newer)).toEqual([])
      expect(doneOf(newer).text).toBe('新。')

      // The busy server reaches the lock for the older input, cut by the newer one before it ran.
      slow.takes.open()
      await older
      expect(errorsOf(olderEvents).map((event) => event.code)).toEqual(['interrupted_by_new_input'])
      await vi.waitFor(() => expect(notStored).toHaveLength(1), { timeout: 10_000 })
      expect(notStored[0]).toMatchObject({ code: 'interrupted_by_new_input', id: 'older' })
      expect(notStored[0]!.message).not.toMatch(/again with the same id|resend/)

      // Sent again with the same id: refused again, not stored after the newer input.
      const resent = await collectEvents(slow.charpipe.generate({ session, text: '先说的', id: 'older' }))
      expect(errorsOf(resent).map((event) => event.code)).toEqual(['interrupted_by_new_input'])
      expect(slow.provider.requests).toHaveLength(0)
      expect(await contents(history, session)).toEqual(['user:后说的', 'assistant:新。'])
    })

    it('refused as late, an input that another attempt stored before the newer one is stored, and nobody is told otherwise', async () => {
      const history = createInMemoryHistoryStore()
      const slow = await startServer(history, '旧。', 'slow')
      const fast = await startServer(history, '新。')
      const notStored: TurnNotStoredEvent[] = []
      const session = 'late-stored'

      const older = slow.charpipe.run(
        { session, text: '先说的', id: 'older' },
        { onEvent: () => {}, onTurnNotStored: (event) => notStored.push(event) },
      )
      await vi.waitFor(() => expect(slow.takes.numbered).toHaveLength(1))
      const [{ lane, order }] = slow.takes.numbered as [{ lane: string; order: number }]
      await slow.cluster.coordinator.withdrawInput(lane, order)
      // The client, hearing nothing, sends it again to the other server, where it is stored; then the newer.
      const again = await collectEvents(fast.charpipe.generate({ session, text: '先说的', id: 'older' }))
      expect(errorsOf(again)).toEqual([])
      const newer = await collectEvents(fast.charpipe.generate({ session, text: '后说的', id: 'newer' }))
      expect(errorsOf(newer)).toEqual([])

      slow.takes.open()
      await older
      expect(await contents(history, session)).toEqual([
        'user:先说的',
        'assistant:新。',
        'user:后说的',
        'assistant:新。',
      ])
      // The first attempt's lock is refused, but its turn is stored: no "not stored" for it.
      await slow.charpipe.close()
      expect(notStored).toEqual([])
    })

    it('refused as late while it runs (the newer input never stopped it), an input another attempt stored is answered from the store', async () => {
      const history = createInMemoryHistoryStore()
      const slow = await startServer(history, '旧。', 'slow and deaf')
      const fast = await startServer(history, '新。')
      const session = 'late-running'

      const older = collectEvents(slow.charpipe.generate({ session, text: '先说的', id: 'older' }))
      await vi.waitFor(() => expect(slow.takes.numbered).toHaveLength(1))
      const [{ lane, order }] = slow.takes.numbered as [{ lane: string; order: number }]
      await slow.cluster.coordinator.withdrawInput(lane, order)
      expect(
        errorsOf(await collectEvents(fast.charpipe.generate({ session, text: '先说的', id: 'older' }))),
      ).toEqual([])
      expect(
        errorsOf(await collectEvents(fast.charpipe.generate({ session, text: '后说的', id: 'newer' }))),
      ).toEqual([])

      slow.takes.open()
      const events = await older
      expect(errorsOf(events)).toEqual([])
      expect(doneOf(events)).toMatchObject({ text: '新。', interrupted: false })
      expect(slow.provider.requests).toHaveLength(0)
      expect(await contents(history, session)).toEqual([
        'user:先说的',
        'assistant:新。',
        'user:后说的',
        'assistant:新。',
      ])
    })
  },
)
