/**
 * The origins of `POST /api/sessions/:id/audience`: who sent the lines (the admin token, a named
 * client, the chat token) at which client address. Like a WebSocket connection or a connector, an
 * origin pays one turn of `server.limits.turns_per_minute` for each reply the server starts to its
 * lines, however many requests and lines that reply answers, and nothing for lines never answered.
 * Apart from that, each request takes one of the origin's `audience_requests_per_minute`: a bound
 * on requests (each stores lines), not on turns, so a flood of POSTs is still refused.
 * Windows are counted with timestamps (no timers), and origins gone quiet are forgotten.
 */
import type { AudienceTurnAdmitter } from '../audience/types.js'

export type TakeRequestResult = { ok: true } | { ok: false; message: string; retryAfterMs: number }

export interface AudienceOrigins {
  /** Counts one request of `origin`, or says why not (nothing is counted then). */
  takeRequest(origin: string): TakeRequestResult
  /**
   * What the selector asks before a turn answering `origin`'s lines starts. The same function for
   * an origin while it is remembered, so a batch of its lines from many requests costs one turn.
   */
  admitTurnOf(origin: string): AudienceTurnAdmitter
}

export interface AudienceOriginLimits {
  turns_per_minute: number
  audience_requests_per_minute: number
}

export interface CreateAudienceOriginsOptions {
  /** `server.limits`, read at every call so a config change applies at once. */
  readLimits: () => AudienceOriginLimits
  /** @default Date.now */
  now?: () => number
}

const windowMs = 60_000
/** Every so many calls, origins whose minute has passed are dropped. */
const sweepEvery = 1000

interface OriginState {
  turns: number[]
  requests: number[]
  admitTurn: AudienceTurnAdmitter
}

/** Takes one from a minute window of `starts` if fewer than `perMinute` are in it. */
function takeFromWindow(
  starts: number[],
  perMinute: number,
  time: number,
): { ok: true } | { ok: false; retryAfterMs: number } {
  while (starts.length > 0 && starts[0]! <= time - windowMs) starts.shift()
  if (starts.length >= perMinute)
    return {
      ok: false,
      retryAfterMs: starts.length > 0 ? Math.max(1, starts[0]! + windowMs - time) : windowMs,
    }
  starts.push(time)
  return { ok: true }
}

export function createAudienceOrigins(options: CreateAudienceOriginsOptions): AudienceOrigins {
  const now = options.now ?? Date.now
  const origins = new Map<string, OriginState>()
  let calls = 0

  const sweep = (time: number) => {
    const quiet = (starts: number[]) => starts.every((start) => start <= time - windowMs)
    for (const [origin, state] of origins)
      if (quiet(state.turns) && quiet(state.requests)) origins.delete(origin)
  }

  const stateOf = (origin: string): OriginState => {
    const time = now()
    if (++calls % sweepEvery === 0) sweep(time)
    let state = origins.get(origin)
    if (!state) {
      // Looked up again at each turn: lines still waiting after their origin was forgotten charge
      // the origin's window of now, never one of their own.
      const admitTurn: AudienceTurnAdmitter = () => {
        const perMinute = options.readLimits().turns_per_minute
        return takeFromWindow(stateOf(origin).turns, perMinute, now())
      }
      state = { turns: [], requests: [], admitTurn }
      origins.set(origin, state)
    }
    return state
  }

  return {
    takeRequest(origin) {
      const perMinute = options.readLimits().audience_requests_per_minute
      const taken = takeFromWindow(stateOf(origin).requests, perMinute, now())
      if (taken.ok) return taken
      return {
        ok: false,
        message: `too many audience requests: at most ${perMinute} a minute (server.limits.audience_requests_per_minute)`,
        retryAfterMs: taken.retryAfterMs,
      }
    },
    admitTurnOf: (origin) => stateOf(origin).admitTurn,
  }
}
