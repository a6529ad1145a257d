/** The clock of a running server: `Date.now` and timers that never keep the process alive. */
import type { AudienceClock } from './types.js'

export function createSystemClock(): AudienceClock {
  return {
    now: () => Date.now(),
    setTimer(callback, delayMs) {
      const timer = setTimeout(callback, delayMs)
      timer.unref?.()
      return timer
    },
    clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
  }
}
