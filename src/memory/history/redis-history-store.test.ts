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
    let failedAt: number | undefined
    const failure = call(store).catch((error: unknown) => {
      failedAt = Date.now()
      return error
    })
    await vi.advanceTimersByTimeAsync(timeoutMs)
    expect(failedAt).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(failedAt).toBeGreaterThan(1_000_000 + timeoutMs)
    expect(await failure).toMatchObject({ message: 'Connection is closed.' })
  })

  it('fails at once when Redis refused the script: it did not run and never will', async () => {
    const refused = Object.assign(new Error('LATE the command arrived after its deadline'), {
      name: 'ReplyError',
    })
    const store = await openStore(refused)
    let failedAt: number | undefined
    const failure = store.resetContext(scope).catch((error: unknown) => {
      failedAt = Date.now()
      return error
    })
    await vi.advanceTimersByTimeAsync(0)
    expect(failedAt).toBe(1_000_000)
    expect(await failure).toBe(refused)
  })
})
