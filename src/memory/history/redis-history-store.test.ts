/**
 * A reset or clear this side gave up on may still sit in Redis' buffer and run later; its script
 * refuses itself only once Redis' clock is past the deadline it carries. So its failure is told only
 * once the wall clock is past that deadline: told earlier (a command timeout that fired early by the
 * wall clock, a broken connection), the caller's next write could be followed by the reset landing.
 * A Redis whose commands fail at once, on a fake clock.
 */
import type { Redis } from 'ioredis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../shared/logger.js'
import { createRedisHistoryStore } from './redis-history-store.js'

const timeoutMs = 500
const scope = { character: 'nova', session: 's' }

/** A client whose every script fails at once with `error`, as on a connection that broke. */
function createFailingClient(error: Error): Redis {
  return { status: 'ready', on() {}, eval: () => Promise.reject(error) } as unknown as Redis
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

describe('a Redis history reset or clear given up on before its deadline', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }))
  afterEach(() => vi.useRealTimers())

  const openStore = (error: Error) =>
    createRedisHistoryStore({
      client: createFailingClient(error),
      timeoutMs,
      logger: createLogger({ level: 'silent' }),
    })

  it.each([
    ['resetContext', (store: Awaited<ReturnType<typeof openStore>>) => store.resetContext(scope)],
    ['clearSession', (store: Awaited<ReturnType<typeof openStore>>) => store.clearSession(scope)],
  ])('%s fails only once the wall clock is past its deadline', async (_name, call) => {
    const store = await openStore(new Error('Connection is closed.'))
    const running = call(store)
    running.catch(() => {})
    expect(await settledYet(running)).toBe(false)
    await vi.advanceTimersByTimeAsync(timeoutMs)
    expect(await settledYet(running)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await expect(running).rejects.toThrow('Connection is closed.')
    expect(Date.now()).toBeGreaterThan(1_000_000 + timeoutMs)
  })

  it('fails at once when Redis refused the script: it did not run and never will', async () => {
    const refused = Object.assign(new Error('LATE the command arrived after its deadline'), {
      name: 'ReplyError',
    })
    const store = await openStore(refused)
    const running = store.resetContext(scope)
    running.catch(() => {})
    expect(await settledYet(running)).toBe(true)
    await expect(running).rejects.toThrow('LATE')
  })
})
