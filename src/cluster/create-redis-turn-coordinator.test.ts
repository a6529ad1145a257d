import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../shared/logger.js'
import { waitPastDeadline } from '../shared/wait-past-deadline.js'
import type { ClusterRedis } from './connect-cluster-redis.js'
import { createRedisTurnCoordinator } from './create-redis-turn-coordinator.js'

const commandTimeoutMs = 500

/** A Redis whose every command fails at once, as on a connection that broke: the failure comes early. */
function createFailingRedis(): ClusterRedis {
  const commands = {
    status: 'ready',
    on() {},
    eval: () => Promise.reject(new Error('Connection is closed.')),
  }
  return {
    commands: commands as unknown as ClusterRedis['commands'],
    serverId: 'server',
    key: (...parts) => parts.join(':'),
    subscribe: async () => {},
    publish: async () => {},
    ping: async () => {},
    close: async () => {},
  }
}

/** Whether `promise` has settled once the microtasks queued now have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  await vi.advanceTimersByTimeAsync(0)
  return settled
}

describe('a Redis command given up on before its deadline', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }))
  afterEach(() => vi.useRealTimers())

  const coordinator = () =>
    createRedisTurnCoordinator({
      redis: createFailingRedis(),
      commandTimeoutMs,
      leaseMs: 10_000,
      lockWaitMs: 2_000,
      logger: createLogger({ level: 'silent' }),
    })

  // The command may still sit in Redis' buffer and run; only past its deadline does it refuse itself.
  it('fails a turn lock take only once the wall clock is past the take deadline', async () => {
    const taking = coordinator().acquire('s', new AbortController().signal)
    taking.catch(() => {})
    expect(await settledYet(taking)).toBe(false)
    await vi.advanceTimersByTimeAsync(commandTimeoutMs)
    expect(await settledYet(taking)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await expect(taking).rejects.toMatchObject({ code: 'store_unavailable' })
    expect(Date.now()).toBeGreaterThan(1_000_000 + commandTimeoutMs)
  })

  it('fails an input numbering only once the wall clock is past its deadline', async () => {
    const numbering = coordinator().announceNewInput('s')
    numbering.catch(() => {})
    expect(await settledYet(numbering)).toBe(false)
    await vi.advanceTimersByTimeAsync(commandTimeoutMs + 1)
    await expect(numbering).rejects.toMatchObject({ code: 'store_unavailable' })
  })

  it('waits out a deadline by the wall clock, even when a timer fires before it by that clock', async () => {
    const deadline = Date.now() + 100
    const waiting = waitPastDeadline(deadline)
    // The loop's clock lagging the wall clock, as on a busy machine: the wall clock goes back 40 ms
    // against the timers, so the first timer fires while the deadline is still ahead.
    vi.setSystemTime(Date.now() - 40)
    await vi.advanceTimersByTimeAsync(101)
    expect(await settledYet(waiting)).toBe(false)
    await vi.advanceTimersByTimeAsync(40)
    expect(await settledYet(waiting)).toBe(true)
    expect(Date.now()).toBeGreaterThan(deadline)
  })
})
