/**
 * Recall on a budget (`memory.recall_timeout_ms`): the long-term memory search for a turn, embedding
 * call included, gets that long to answer; past it the turn goes on without memories. The store's
 * own deadline (`storage.timeout_ms`, seconds) is for the store's sake; this one is the reply's:
 * a frozen store must not hold the first chunk. The late answer is dropped, and a late failure is
 * only logged, never left as an unhandled rejection.
 */
import type { Logger } from '../../shared/logger.js'
import type { MemoryHit } from '../types.js'

/** Where the budget's timer comes from: the engine's clock (a manual one in tests). */
export interface RecallTimers {
  setTimer(callback: () => void, delayMs: number): unknown
  clearTimer(timer: unknown): void
}

export type RecallResult = { status: 'answered'; hits: MemoryHit[] } | { status: 'timed_out' }

export interface RecallWithinBudgetOptions {
  /** Starts the search; called once. */
  recall(): Promise<MemoryHit[]>
  budgetMs: number
  timers?: RecallTimers
  /** Told of a failure that came after the budget had passed. */
  logger?: Logger
}

/** Timers of the process, never keeping it alive: for callers without the engine's clock. */
const processTimers: RecallTimers = {
  setTimer(callback, delayMs) {
    const timer = setTimeout(callback, delayMs)
    timer.unref?.()
    return timer
  },
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
}

/**
 * The search's hits, or `timed_out` once `budgetMs` has passed without them. A failure within the
 * budget rejects as the search did: the caller decides what a failing store means.
 */
export function recallWithinBudget(options: RecallWithinBudgetOptions): Promise<RecallResult> {
  const timers = options.timers ?? processTimers
  let pending: Promise<MemoryHit[]>
  try {
    pending = Promise.resolve(options.recall())
  } catch (error) {
    return Promise.reject(error)
  }
  return new Promise<RecallResult>((resolve, reject) => {
    let settled = false
    const timer = timers.setTimer(() => {
      if (settled) return
      settled = true
      resolve({ status: 'timed_out' })
    }, options.budgetMs)
    pending.then(
      (hits) => {
        if (settled) return
        settled = true
        timers.clearTimer(timer)
        resolve({ status: 'answered', hits })
      },
      (error: unknown) => {
        if (!settled) {
          settled = true
          timers.clearTimer(timer)
          reject(error)
          return
        }
        // Past the budget nobody waits for it any more: logged, never unhandled.
        options.logger?.debug({ err: error }, 'a memory recall failed after its budget had passed')
      },
    )
  })
}
