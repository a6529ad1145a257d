/**
 * A turn budget counted over the last minute (shared/create-minute-window.ts): what a connector, or
 * the origin of server-started turns, may cause per minute. The clock is injected so tests move time.
 */
import { createMinuteWindow } from '../shared/create-minute-window.js'

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

export function createMinuteBudget(options: CreateMinuteBudgetOptions): TurnBudget {
  const window = createMinuteWindow({ now: options.now ?? Date.now })
  return {
    take() {
      const perMinute = options.readPerMinute()
      const taken = window.take(perMinute)
      if (taken.ok) return taken
      return {
        ok: false,
        message: `too many turns: at most ${perMinute} a minute (${options.setting})`,
        retryAfterMs: taken.retryAfterMs,
      }
    },
  }
}
