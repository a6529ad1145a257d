/**
 * A sliding minute: how many things (turns, requests) were taken in the last 60 seconds, and when
 * the next may be. Timestamps, no timers, and an injected clock, so a test moves time by hand and
 * an idle window costs nothing. The connectors' budgets, the HTTP turn limits and the audience
 * origins all count with it, so "at most N a minute" means the same everywhere.
 */

export const minuteMs = 60_000

export type TakeMinuteWindowResult =
  | { ok: true }
  /**
   * `retryAfterMs`: exactly when a take would succeed again (the limit unchanged and nothing else
   * taken); a minute when the limit is 0, since then none ever would.
   */
  | { ok: false; retryAfterMs: number }

export interface MinuteWindow {
  /** Takes one when fewer than `limit` were taken in the last minute; nothing is counted otherwise. */
  take(limit: number): TakeMinuteWindowResult
  /** How many takes the last minute holds. */
  size(): number
}

export interface CreateMinuteWindowOptions {
  /** Milliseconds; read at every call. @default Date.now */
  now?: () => number
}

export function createMinuteWindow(options: CreateMinuteWindowOptions = {}): MinuteWindow {
  const now = options.now ?? Date.now
  // Oldest first: a take leaves the window once a full minute has passed since it.
  const starts: number[] = []
  const trim = (time: number) => {
    let gone = 0
    while (gone < starts.length && starts[gone]! <= time - minuteMs) gone++
    if (gone > 0) starts.splice(0, gone)
  }
  return {
    take(limit) {
      const time = now()
      trim(time)
      if (starts.length < limit) {
        starts.push(time)
        return { ok: true }
      }
      if (limit <= 0) return { ok: false, retryAfterMs: minuteMs }
      // A limit lowered since the takes were made: this many more must leave first.
      const blocking = starts[starts.length - limit]!
      return { ok: false, retryAfterMs: blocking + minuteMs - time }
    },
    size() {
      trim(now())
      return starts.length
    },
  }
}
