/**
 * Per-connection and per-client limits on turns: how many may start in a minute and how many may
 * run at once. Every turn is a model request that costs money and upstream capacity, so a client
 * sending thousands of frames or requests gets a clear refusal instead of as many upstream calls.
 * Minutes are counted by shared/create-minute-window.ts (no timers), and clients without turns are
 * forgotten.
 */
import { createMinuteWindow, type MinuteWindow } from '../shared/create-minute-window.js'

export interface TurnLimits {
  turns_per_minute: number
  concurrent_turns: number
}

export type StartTurnResult =
  | { ok: true; release: () => void }
  /** `retryAfterMs`: when the minute's oldest turn leaves it (absent for the concurrency limit). */
  | { ok: false; message: string; retryAfterMs?: number }

export interface TurnLimiter {
  /** Takes a slot for one turn of `client`, or says why not. Call `release` when the turn ends. */
  tryStart(client: string): StartTurnResult
}

export interface CreateTurnLimiterOptions {
  /** Read at every call so a config change applies at once. */
  readLimits: () => TurnLimits
  /** @default Date.now */
  now?: () => number
}

interface ClientState {
  window: MinuteWindow
  running: number
}

export function createTurnLimiter(options: CreateTurnLimiterOptions): TurnLimiter {
  const now = options.now ?? Date.now
  const clients = new Map<string, ClientState>()

  let calls = 0

  const isIdle = (state: ClientState) => state.running === 0 && state.window.size() === 0

  // Clients seen once and never again would otherwise stay; a sweep now and then drops them.
  const sweep = () => {
    for (const [client, state] of clients) if (isIdle(state)) clients.delete(client)
  }

  return {
    tryStart(client) {
      const limits = options.readLimits()
      if (++calls % 1000 === 0) sweep()
      let state = clients.get(client)
      if (!state) {
        state = { window: createMinuteWindow({ now }), running: 0 }
        clients.set(client, state)
      }
      if (state.running >= limits.concurrent_turns) {
        if (isIdle(state)) clients.delete(client)
        return {
          ok: false,
          message: `too many turns at once: at most ${limits.concurrent_turns} (server.limits.concurrent_turns)`,
        }
      }
      const taken = state.window.take(limits.turns_per_minute)
      if (!taken.ok) {
        if (isIdle(state)) clients.delete(client)
        return {
          ok: false,
          message: `too many turns: at most ${limits.turns_per_minute} a minute (server.limits.turns_per_minute)`,
          retryAfterMs: taken.retryAfterMs,
        }
      }
      state.running++
      const held = state
      let released = false
      return {
        ok: true,
        release: () => {
          if (released) return
          released = true
          held.running--
          // A client gone quiet is dropped once its minute ends (here or at a sweep).
          if (isIdle(held)) clients.delete(client)
        },
      }
    },
  }
}

export interface FrameRateLimiter {
  /** True when one more frame may be taken now. */
  take(): boolean
}

/** A token bucket: `perSecond` frames a second, bursts up to twice that. */
export function createFrameRateLimiter(
  readPerSecond: () => number,
  now: () => number = Date.now,
): FrameRateLimiter {
  let tokens = readPerSecond() * 2
  let last = now()
  return {
    take() {
      const perSecond = readPerSecond()
      const time = now()
      tokens = Math.min(perSecond * 2, tokens + ((time - last) / 1000) * perSecond)
      last = time
      if (tokens < 1) return false
      tokens--
      return true
    },
  }
}
