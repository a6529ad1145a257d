/**
 * The process's own clock for deadlines: the global `performance.now()` (monotonic, finer than a
 * millisecond; the one a test's fake timers replace) and timers that never keep the process alive.
 */

export interface MonotonicClock {
  /** Milliseconds, monotonic. */
  now(): number
  setTimer(callback: () => void, delayMs: number): unknown
  clearTimer(timer: unknown): void
}

/** `now` @default the global `performance.now()` */
export function createMonotonicClock(now: () => number = () => performance.now()): MonotonicClock {
  return {
    now,
    setTimer(callback, delayMs) {
      const timer = setTimeout(callback, delayMs)
      timer.unref?.()
      return timer
    },
    clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
  }
}
