/**
 * A turn budget counted over the last minute (timestamps, no timers): what a connector, or the
 * origin of server-started turns, may cause per minute. The clock is injected so tests move time.
 */

export type TakeBudgetResult =
  | { ok: true }
  /** `retryAfterMs`: when the oldest turn of the minute leaves it and a turn may be taken again. */
  | { ok: false; message: string; retryAfterMs?: number }

export interface TurnBudget {
  /** Counts one turn, or says why not (nothing is counted then). */
  take(): TakeBudgetResult
}

export interface CreateMinuteBudgetOptions {
  /** Read at every take so a config change applies at once. */
  readPerMinute: () => number
  /** Names the setting in refusals, e.g. `connectors.twitch[0].turns_per_minute`. */
  setting: string
  /** @default Date.now */
  now?: () => number
}

const windowMs = 60_000

export function createMinuteBudget(options: CreateMinuteBudgetOptions): TurnBudget {
  const now = options.now ?? Date.now
  const starts: number[] = []
  return {
    take() {
      const time = now()
      while (starts.length > 0 && starts[0]! <= time - windowMs) starts.shift()
      const perMinute = options.readPerMinute()
      if (starts.length >= perMinute)
        return {
          ok: false,
          message: `too many turns: at most ${perMinute} a minute (${options.setting})`,
          retryAfterMs: starts.length > 0 ? Math.max(1, starts[0]! + windowMs - time) : windowMs,
        }
      starts.push(time)
      return { ok: true }
    },
  }
}
