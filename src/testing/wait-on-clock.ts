/**
 * Waits on an `AudienceClock` until a given time, or until `signal` aborts: the fakes pace their
 * replies by it, so a test's manual clock decides when the next chunk goes out. A time already
 * passed (the clock moved on while the caller was busy) resolves at once without a timer.
 */
import type { AudienceClock } from '../audience/types.js'

export function waitOnClockUntil(clock: AudienceClock, at: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const remaining = at - clock.now()
    if (signal.aborted || remaining <= 0) return resolve()
    const onAbort = () => {
      clock.clearTimer(timer)
      resolve()
    }
    const timer = clock.setTimer(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, remaining)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
