import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { type Cluster, connectCluster } from '../../src/cluster/connect-cluster.js'
import type { ClusterInterrupt } from '../../src/cluster/turn-coordinator.js'
import { configSchema } from '../../src/config/schema.js'
import { createLogger } from '../../src/shared/logger.js'
import { startTcpProxy } from '../faults/tcp-proxy.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
if (skipReason) console.warn(`cluster tests skipped: ${skipReason}`)
const logger = createLogger({ level: 'silent' })
const opened: Cluster[] = []

async function join(
  cluster: { lease_ms?: number; lock_wait_ms?: number } = {},
  redisUrl = testRedisUrl,
): Promise<Cluster> {
  const config = configSchema.parse({
    storage: { redis_url: redisUrl },
    cluster: { enabled: true, key_prefix: keyPrefix, ...cluster },
  })
  const member = await connectCluster(config, logger)
  opened.push(member)
  return member
}

afterAll(async () => {
  for (const member of opened) await member.close()
  await deleteKeys()
})

describe.skipIf(skipReason !== undefined)('the Redis turn lock', { timeout: 20_000 }, () => {
  it('lets one server hold a session at a time; the next holder gets a larger fence once it is released', async () => {
    const [a, b] = [await join(), await join()]
    const first = await a.coordinator.acquire('s-order', new AbortController().signal)
    let secondHeld = false
    const second = b.coordinator.acquire('s-order', new AbortController().signal).then((lease) => {
      secondHeld = true
      return lease
    })
    // The second server found the session taken and waits.
    await expect.poll(() => b.stats().lockWaits).toBe(1)
    expect(secondHeld).toBe(false)
    expect(await first.confirm()).toBe(true)
    await first.release()
    const next = await second
    expect(next.fence).toBeGreaterThan(first.fence)
    expect(b.stats().lockWaits).toBe(1)
    // The first holder is stale now: it may not store.
    expect(await first.confirm()).toBe(false)
    await next.release()
  })

  it('takes the lock in input order: a later input waits for an earlier one that has not taken it yet, until it takes it or is withdrawn', async () => {
    const [a, b] = [await join(), await join()]
    const first = await a.coordinator.announceNewInput('s-inputs')
    const second = await b.coordinator.announceNewInput('s-inputs')
    const third = await a.coordinator.announceNewInput('s-inputs')
    expect([second - first, third - second]).toEqual([1, 1])
    const taken: number[] = []
    const take = (member: Cluster, order: number) =>
      member.coordinator.acquire('s-inputs', new AbortController().signal, order).then(async (lease) => {
        taken.push(order)
        await lease.release()
      })
    // The newest asks first, then the middle one: both wait for the first input.
    const waiting = [take(a, third), take(b, second)]
    await vi.waitFor(() => expect(a.stats().lockWaits + b.stats().lockWaits).toBe(2), { timeout: 5000 })
    expect(taken).toEqual([])
    // The first input's turn will not take the lock (cancelled): the others go, in their order.
    await a.coordinator.withdrawInput('s-inputs', first)
    await Promise.all(waiting)
    expect(taken).toEqual([second, third])
  })

  it('refuses an input whose turn would come after a later input that took the lock already', async () => {
    const [a, b] = [await join(), await join()]
    const first = await a.coordinator.announceNewInput('s-late')
    const second = await b.coordinator.announceNewInput('s-late')
    // The first input stopped counting as pending (its wait ran out on a busy server).
    await a.coordinator.withdrawInput('s-late', first)
    const later = await b.coordinator.acquire('s-late', new AbortController().signal, second)
    await later.release()
    await expect(
      a.coordinator.acquire('s-late', new AbortController().signal, first, 'turn-first'),
    ).rejects.toMatchObject({
      code: 'interrupted_by_new_input',
      message: expect.stringMatching(/newer input of this session took its turn first/),
    })
    // Sent again (a new, later number; the same turn): refused for good, on any server.
    const again = await b.coordinator.announceNewInput('s-late')
    await expect(
      b.coordinator.acquire('s-late', new AbortController().signal, again, 'turn-first'),
    ).rejects.toMatchObject({ code: 'interrupted_by_new_input' })
    // Or unnumbered (a resend queued behind the first attempt on its own server).
    await expect(
      a.coordinator.acquire('s-late', new AbortController().signal, undefined, 'turn-first'),
    ).rejects.toMatchObject({ code: 'interrupted_by_new_input' })
    // Another input numbered after it takes its turn.
    const next = await a.coordinator.announceNewInput('s-late')
    const taken = await a.coordinator.acquire('s-late', new AbortController().signal, next, 'turn-next')
    await taken.release()
  })

  it('fails an input whose numbering failed, instead of letting it skip the queue', async () => {
    const a = await join()
    const numbering = Promise.reject(new Error('numbering the input: Redis is away'))
    await expect(
      a.coordinator.acquire('s-unnumbered', new AbortController().signal, numbering),
    ).rejects.toThrow(/Redis is away/)
  })

  it('releases a lease whose release failed while Redis was away, once it is back', async () => {
    const proxy = await startTcpProxy(Number(new URL(testRedisUrl).port || 6379))
    try {
      const url = new URL(testRedisUrl)
      url.host = `127.0.0.1:${proxy.port}`
      // A lease far longer than the test: only the release can free the session.
      const a = await join({ lease_ms: 120_000 }, url.toString())
      const b = await join({ lease_ms: 120_000, lock_wait_ms: 15_000 })
      const lease = await a.coordinator.acquire('s-release', new AbortController().signal)
      proxy.stall()
      proxy.dropAll()
      await lease.release()
      proxy.resume()
      const next = await b.coordinator.acquire('s-release', new AbortController().signal)
      expect(next.fence).toBeGreaterThan(lease.fence)
      await next.release()
    } finally {
      await proxy.close()
    }
  })

  it('frees a session held by a server that died once its lease runs out, with a larger fence', async () => {
    // The other server waits for the lock at most 5 s: past that, acquire fails with store_unavailable.
    const [a, b] = [await join({ lease_ms: 600 }), await join({ lease_ms: 600, lock_wait_ms: 5000 })]
    const held = await a.coordinator.acquire('s-dead', new AbortController().signal)
    // A server that stops renewing: its lease key is left to expire, as after SIGKILL.
    const raw = new Redis(testRedisUrl)
    await raw.pexpire(`${keyPrefix}lease:s-dead`, 600)
    await a.close()
    opened.splice(opened.indexOf(a), 1)
    const taken = await b.coordinator.acquire('s-dead', new AbortController().signal)
    expect(b.stats().lockWaits).toBe(1)
    expect(taken.fence).toBe(held.fence + 1)
    expect(await raw.get(`${keyPrefix}lease:s-dead`)).not.toBeNull()
    await taken.release()
    expect(await raw.get(`${keyPrefix}lease:s-dead`)).toBeNull()
    await raw.quit()
  })

  it('keeps renewing the lease while the turn runs, so a long turn is not taken over', async () => {
    const [a, b] = [await join({ lease_ms: 600 }), await join({ lease_ms: 600, lock_wait_ms: 1500 })]
    const held = await a.coordinator.acquire('s-long', new AbortController().signal)
    // Longer than the lease: the holder renews it; the other server gives up with store_unavailable.
    await expect(b.coordinator.acquire('s-long', new AbortController().signal)).rejects.toMatchObject({
      code: 'store_unavailable',
      store: 'cluster',
      timedOut: true,
    })
    expect(await held.confirm()).toBe(true)
    await held.release()
  })

  it('stops waiting when the turn is aborted', async () => {
    const [a, b] = [await join(), await join()]
    const held = await a.coordinator.acquire('s-abort', new AbortController().signal)
    const controller = new AbortController()
    const waiting = b.coordinator.acquire('s-abort', controller.signal)
    controller.abort(new Error('gone'))
    await expect(waiting).rejects.toThrow('gone')
    await held.release()
  })

  it('delivers an interrupt to the other servers, not back to the sender', async () => {
    const [a, b] = [await join(), await join()]
    const heardByA: ClusterInterrupt[] = []
    const heardByB: ClusterInterrupt[] = []
    a.coordinator.onInterrupt((message) => {
      heardByA.push(message)
      return 1
    })
    b.coordinator.onInterrupt((message) => {
      heardByB.push(message)
      return 0
    })
    // Subscriptions are set up asynchronously: send until it arrives (bounded).
    for (let attempt = 0; attempt < 50 && heardByA.length === 0; attempt++) {
      await b.coordinator.publishInterrupt({ session: 's-int', kind: 'interrupt', heard: '你好' })
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(heardByA[0]).toMatchObject({ session: 's-int', kind: 'interrupt', heard: '你好' })
    expect(heardByB).toEqual([])
    expect(a.stats().remoteInterrupts).toBeGreaterThan(0)
  })
})

describe('the cluster without Redis', () => {
  it('refuses to start with a clear store_unavailable error, without the password', async () => {
    const config = configSchema.parse({
      storage: { redis_url: 'redis://someone:hunter2secret@127.0.0.1:1', timeout_ms: 300 },
      cluster: { enabled: true },
    })
    const attempt = connectCluster(config, logger)
    await expect(attempt).rejects.toMatchObject({ code: 'store_unavailable', store: 'cluster' })
    await expect(attempt).rejects.not.toThrow(/hunter2secret/)
  })

  it('names storage.redis_url when it is missing', async () => {
    const config = configSchema.parse({ cluster: { enabled: true } })
    await expect(connectCluster(config, logger)).rejects.toThrow(/storage\.redis_url/)
  })
})
