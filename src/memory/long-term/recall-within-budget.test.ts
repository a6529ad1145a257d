/**
 * Recall on a budget, on a manual clock: an answer within the budget is the hits, none by then is
 * `timed_out`, a failure within it is the caller's to judge, and whatever comes after it is dropped
 * without an unhandled rejection.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createManualClock } from '../../testing/create-manual-clock.js'
import type { MemoryHit } from '../types.js'
import { recallWithinBudget } from './recall-within-budget.js'

const hit: MemoryHit = { id: 'm1', scope: 's', text: 'likes tea', time: 0, score: 1, kind: 'memory' }

/** A search the test answers or fails when it chooses. */
function createControlledSearch() {
  let answer!: (hits: MemoryHit[]) => void
  let fail!: (error: Error) => void
  const promise = new Promise<MemoryHit[]>((resolve, reject) => {
    answer = resolve
    fail = reject
  })
  return { promise, answer, fail }
}

/** Lets a rejection nobody handled reach the process's `unhandledRejection` (a task later). */
const nextTask = () => new Promise<void>((resolve) => setImmediate(resolve))

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
afterEach(() => {
  process.off('unhandledRejection', onUnhandled)
  unhandled.length = 0
})

describe('recallWithinBudget', () => {
  it('answers with the hits the search gave within the budget, and clears its timer', async () => {
    const clock = createManualClock()
    const search = createControlledSearch()
    const result = recallWithinBudget({ recall: () => search.promise, budgetMs: 150, timers: clock })
    await clock.advance(149)
    search.answer([hit])
    await expect(result).resolves.toEqual({ status: 'answered', hits: [hit] })
    expect(clock.pending()).toBe(0)
  })

  it('is timed_out once the budget passes without an answer, and not a moment before', async () => {
    const clock = createManualClock()
    const search = createControlledSearch()
    let settled: unknown
    void recallWithinBudget({ recall: () => search.promise, budgetMs: 150, timers: clock }).then((result) => {
      settled = result
    })
    await clock.advance(149)
    expect(settled).toBeUndefined()
    await clock.advance(1)
    expect(settled).toEqual({ status: 'timed_out' })
    // The late answer changes nothing.
    search.answer([hit])
    await nextTask()
    expect(settled).toEqual({ status: 'timed_out' })
  })

  it('rejects as the search did when it fails within the budget', async () => {
    const clock = createManualClock()
    const search = createControlledSearch()
    const result = recallWithinBudget({ recall: () => search.promise, budgetMs: 150, timers: clock })
    search.fail(new Error('store down'))
    await expect(result).rejects.toThrow('store down')
    expect(clock.pending()).toBe(0)
  })

  it('rejects as the search did when starting it throws', async () => {
    const clock = createManualClock()
    const result = recallWithinBudget({
      recall: () => {
        throw new Error('bad query')
      },
      budgetMs: 150,
      timers: clock,
    })
    await expect(result).rejects.toThrow('bad query')
    expect(clock.pending()).toBe(0)
  })

  it('a failure after the budget is logged, never an unhandled rejection', async () => {
    process.on('unhandledRejection', onUnhandled)
    const clock = createManualClock()
    const search = createControlledSearch()
    const debug = vi.fn()
    const logger = { debug } as unknown as Parameters<typeof recallWithinBudget>[0]['logger']
    const result = recallWithinBudget({ recall: () => search.promise, budgetMs: 150, timers: clock, logger })
    await clock.advance(150)
    await expect(result).resolves.toEqual({ status: 'timed_out' })
    search.fail(new Error('frozen server gave up'))
    await nextTask()
    await nextTask()
    expect(unhandled).toEqual([])
    expect(debug).toHaveBeenCalledTimes(1)
  })
})
