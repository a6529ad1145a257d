/**
 * A clock that moves only when a test says so, for the audience selector and anything else that
 * takes an `AudienceClock`: minutes of chat run in milliseconds. `advance` fires due timers in time
 * order, letting promise callbacks run after each one, so work a timer starts can set the next timer.
 *
 * @example
 * const clock = createManualClock()
 * const charpipe = await createCharpipe(config, { clock })
 * await clock.advance(30_000)
 */
import type { AudienceClock } from '../audience/types.js'

export interface ManualClock extends AudienceClock {
  /** Moves time forward by `milliseconds`, firing every timer due on the way. */
  advance(milliseconds: number): Promise<void>
  /** Timers set and not yet fired or cleared. */
  pending(): number
}

interface Timer {
  at: number
  order: number
  callback: () => void
}

/** Lets queued promise callbacks (and the ones they queue) run. */
async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) await Promise.resolve()
}

export function createManualClock(start = Date.parse('2026-01-01T00:00:00Z')): ManualClock {
  let time = start
  let order = 0
  const timers = new Set<Timer>()
  const nextDue = (until: number): Timer | undefined => {
    let next: Timer | undefined
    for (const timer of timers) {
      if (timer.at > until) continue
      if (!next || timer.at < next.at || (timer.at === next.at && timer.order < next.order)) next = timer
    }
    return next
  }
  return {
    now: () => time,
    setTimer(callback, delayMs) {
      const timer: Timer = { at: time + Math.max(0, delayMs), order: order++, callback }
      timers.add(timer)
      return timer
    },
    clearTimer: (timer) => {
      timers.delete(timer as Timer)
    },
    async advance(milliseconds) {
      const until = time + milliseconds
      await settle()
      for (let timer = nextDue(until); timer; timer = nextDue(until)) {
        timers.delete(timer)
        time = Math.max(time, timer.at)
        timer.callback()
        await settle()
      }
      time = until
    },
    pending: () => timers.size,
  }
}
