/**
 * The clock turns read: their timing (`llm_done.timing`) and a prepared turn's expiry and minimum
 * interval. A caller's clock when it gives one (`createCharpipe`'s `clock`: a test's manual clock
 * moves turns and preflights as it moves the audience), else `performance.now()`, which is monotonic
 * and finer than a millisecond, with timers that never keep the process alive.
 */
import { performance } from 'node:perf_hooks'
import type { AudienceClock } from '../audience/types.js'
import { createMonotonicClock } from '../shared/create-monotonic-clock.js'

export function createTurnClock(): AudienceClock {
  return createMonotonicClock(() => performance.now())
}
