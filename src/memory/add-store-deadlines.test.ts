import { afterEach, describe, expect, it, vi } from 'vitest'
import { createSliceQueue } from '../shared/create-slice-queue.js'
import { BadRequestError, CharpipeError } from '../shared/errors.js'
import { addStoreDeadlines } from './add-store-deadlines.js'
import { onStoreFailure, type StoreFailure } from './store-failures.js'

const never = () => new Promise<never>(() => {})

function createFakeStore() {
  return {
    calls: 0,
    async read(value: string) {
      this.calls++
      return `read ${value}`
    },
    hang: never,
    async fail(): Promise<void> {
      throw new Error('ECONNREFUSED 127.0.0.1:6379')
    },
    async refuse(): Promise<void> {
      throw new BadRequestError('limit must be a whole number')
    },
    close: never,
  }
}

let stopListening: (() => void) | undefined
afterEach(() => stopListening?.())

describe('addStoreDeadlines', () => {
  it('passes answers through and keeps `this`', async () => {
    const target = createFakeStore()
    const store = addStoreDeadlines(target, { store: 'history', backend: 'redis', timeoutMs: 1000 })
    await expect(store.read('x')).resolves.toBe('read x')
    expect(target.calls).toBe(1)
  })

  it('fails a call that does not answer within the deadline with store_unavailable', async () => {
    const failures: StoreFailure[] = []
    stopListening = onStoreFailure((failure) => failures.push(failure))
    const store = addStoreDeadlines(createFakeStore(), {
      store: 'history',
      backend: 'postgres',
      timeoutMs: 50,
    })
    const error = await store.hang().catch((caught: unknown) => caught)
    expect(CharpipeError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'store_unavailable', store: 'history', timedOut: true })
    expect((error as Error).message).toContain('did not answer within 50 ms (hang)')
    expect(failures).toEqual([{ store: 'history', backend: 'postgres', operation: 'hang', timedOut: true }])
  })

  it('types a back end failure as store_unavailable with its reason', async () => {
    const store = addStoreDeadlines(createFakeStore(), {
      store: 'history',
      backend: 'redis',
      timeoutMs: 1000,
    })
    await expect(store.fail()).rejects.toMatchObject({
      code: 'store_unavailable',
      timedOut: false,
      message: expect.stringContaining('ECONNREFUSED'),
    })
  })

  it('lets bad input through as it is', async () => {
    const store = addStoreDeadlines(createFakeStore(), {
      store: 'history',
      backend: 'redis',
      timeoutMs: 1000,
    })
    await expect(store.refuse()).rejects.toMatchObject({ code: 'bad_request' })
  })

  it('does not bound the methods named unbounded, but still types their failures', async () => {
    const store = addStoreDeadlines(createFakeStore(), {
      store: 'memory',
      backend: 'sqlite',
      timeoutMs: 20,
      unbounded: ['hang', 'fail'],
    })
    vi.useFakeTimers()
    try {
      let outcome = 'still waiting'
      store.hang().then(
        () => (outcome = 'answered'),
        () => (outcome = 'missed its deadline'),
      )
      // Far past the 20 ms deadline the other methods have.
      await vi.advanceTimersByTimeAsync(60_000)
      expect(outcome).toBe('still waiting')
    } finally {
      vi.useRealTimers()
    }
    await expect(store.fail()).rejects.toMatchObject({ code: 'store_unavailable' })
  })

  it('bounds a method with a longer deadline of its own by that deadline, not the shorter one', async () => {
    const failures: StoreFailure[] = []
    stopListening = onStoreFailure((failure) => failures.push(failure))
    const store = addStoreDeadlines(
      { add: never, search: never },
      { store: 'memory', backend: 'postgres', timeoutMs: 20, longer: { add: 500 } },
    )
    vi.useFakeTimers()
    try {
      let outcome: unknown = 'still waiting'
      store.add().catch((error: unknown) => {
        outcome = error
      })
      await vi.advanceTimersByTimeAsync(499)
      expect(outcome).toBe('still waiting')
      await vi.advanceTimersByTimeAsync(1)
      expect(outcome).toMatchObject({ code: 'store_unavailable', store: 'memory', timedOut: true })
      expect((outcome as Error).message).toContain('did not answer within 500 ms (add)')
      // The other methods keep the store's own deadline.
      const search = store.search().catch((error: unknown) => error)
      await vi.advanceTimersByTimeAsync(20)
      expect(await search).toMatchObject({ code: 'store_unavailable', timedOut: true })
    } finally {
      vi.useRealTimers()
    }
    expect(failures.map((failure) => failure.operation)).toEqual(['add', 'search'])
  })

  it('resolves close() after the deadline when the store cannot close', async () => {
    const store = addStoreDeadlines(createFakeStore(), { store: 'history', backend: 'redis', timeoutMs: 50 })
    await expect(store.close()).resolves.toBeUndefined()
  })

  describe('with the in-process queue the store waits in', () => {
    afterEach(() => vi.useRealTimers())

    /** Timers and `performance.now` on a fake clock; the queue's turns of the loop stay real. */
    function useFakeClock() {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
    }

    it('does not count the time a write waited behind other work in the queue', async () => {
      useFakeClock()
      const queue = createSliceQueue()
      // Other sessions' work ahead of the write: ten slices of 600 ms of CPU each (6 s in all).
      const ahead = Array.from({ length: 10 }, () => queue.run(() => vi.advanceTimersByTime(600)))
      const target = {
        async add(text: string) {
          return queue.run(() => `stored ${text}`)
        },
      }
      const store = addStoreDeadlines(target, { store: 'memory', backend: 'sqlite', timeoutMs: 2500, queue })
      await expect(store.add('a memory')).resolves.toBe('stored a memory')
      await Promise.all(ahead)
    })

    it('still fails a call that does not answer while the queue is idle', async () => {
      useFakeClock()
      const queue = createSliceQueue()
      const store = addStoreDeadlines(createFakeStore(), {
        store: 'memory',
        backend: 'sqlite',
        timeoutMs: 2500,
        queue,
      })
      const outcome = store.hang().catch((caught: unknown) => caught)
      // One second of backlog while the call hangs: its deadline moves by that second only.
      const ahead = queue.run(() => vi.advanceTimersByTime(1000))
      await ahead
      await vi.advanceTimersByTimeAsync(2499)
      let settled = false
      void outcome.then(() => {
        settled = true
      })
      await Promise.resolve()
      expect(settled).toBe(false)
      await vi.advanceTimersByTimeAsync(2)
      expect(await outcome).toMatchObject({ code: 'store_unavailable', timedOut: true })
    })
  })
})
