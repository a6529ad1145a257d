/**
 * The origins of `POST /api/sessions/:id/audience`: who sent the lines (the admin token, a named
 * client, the chat token) at which client address. Like a WebSocket connection or a connector, an
 * origin pays one turn of `server.limits.turns_per_minute` for each reply the server starts to its
 * lines, however many requests and lines that reply answers, and nothing for lines never answered.
 * Apart from that, each request (of the audience, `observe` and `open` routes together) takes one
 * of the origin's `audience_requests_per_minute`: a bound on requests (each stores lines or opens a
 * session), not on turns, so a flood of POSTs is still refused.
 * An origin follows no session, so the sessions its lines keep live are counted here: at most
 * `server.limits.live_sessions` at once, each from its lines' arrival until the server has nothing
 * more to start there by itself (the audience hub lets go of it then). The idle turns those sessions
 * get are charged to the same turns as the replies.
 * Minutes are counted by shared/create-minute-window.ts (no timers), and origins gone quiet are
 * forgotten.
 */
import type { AudienceKeeper, AudienceTurnAdmitter } from '../audience/types.js'
import { createMinuteWindow, type MinuteWindow } from '../shared/create-minute-window.js'

export type TakeRequestResult = { ok: true } | { ok: false; message: string; retryAfterMs: number }

export type AdmitSessionResult = { ok: true; keeper: AudienceKeeper } | { ok: false; message: string }

export interface AudienceOrigins {
  /** Counts one request of `origin`, or says why not (nothing is counted then). */
  takeRequest(origin: string): TakeRequestResult
  /**
   * What the selector asks before a turn answering `origin`'s lines starts. The same function for
   * an origin while it is remembered, so a batch of its lines from many requests costs one turn.
   */
  admitTurnOf(origin: string): AudienceTurnAdmitter
  /**
   * Whether `origin`'s lines may go to `session` (a session, with the character answering there):
   * yes when it keeps that session live already or fewer than `live_sessions` others. The keeper
   * counts the session once the lines make it live, and lets it go when it stops being live.
   */
  admitSession(origin: string, session: string): AdmitSessionResult
}

export interface AudienceOriginLimits {
  turns_per_minute: number
  audience_requests_per_minute: number
  live_sessions: number
}

export interface CreateAudienceOriginsOptions {
  /** `server.limits`, read at every call so a config change applies at once. */
  readLimits: () => AudienceOriginLimits
  /** @default Date.now */
  now?: () => number
}

/** Every so many calls, origins whose minute has passed are dropped. */
const sweepEvery = 1000

interface OriginState {
  turns: MinuteWindow
  requests: MinuteWindow
  /** The sessions its lines keep live now. */
  live: Set<string>
  admitTurn: AudienceTurnAdmitter
}

export function createAudienceOrigins(options: CreateAudienceOriginsOptions): AudienceOrigins {
  const now = options.now ?? Date.now
  const origins = new Map<string, OriginState>()
  let calls = 0

  const sweep = () => {
    for (const [origin, state] of origins)
      if (state.turns.size() === 0 && state.requests.size() === 0 && state.live.size === 0)
        origins.delete(origin)
  }

  const stateOf = (origin: string): OriginState => {
    if (++calls % sweepEvery === 0) sweep()
    let state = origins.get(origin)
    if (!state) {
      // Looked up again at each turn: lines still waiting after their origin was forgotten charge
      // the origin's window of now, never one of their own.
      const admitTurn: AudienceTurnAdmitter = () => {
        const perMinute = options.readLimits().turns_per_minute
        return stateOf(origin).turns.take(perMinute)
      }
      state = {
        turns: createMinuteWindow({ now }),
        requests: createMinuteWindow({ now }),
        live: new Set(),
        admitTurn,
      }
      origins.set(origin, state)
    }
    return state
  }

  return {
    takeRequest(origin) {
      const perMinute = options.readLimits().audience_requests_per_minute
      const taken = stateOf(origin).requests.take(perMinute)
      if (taken.ok) return taken
      return {
        ok: false,
        message: `too many audience, observe and open requests: at most ${perMinute} a minute (server.limits.audience_requests_per_minute)`,
        retryAfterMs: taken.retryAfterMs,
      }
    },
    admitTurnOf: (origin) => stateOf(origin).admitTurn,
    admitSession(origin, session) {
      const { live } = stateOf(origin)
      const limit = options.readLimits().live_sessions
      if (!live.has(session) && live.size >= limit)
        return {
          ok: false,
          message: `this client already keeps ${live.size} sessions live: at most ${limit} (server.limits.live_sessions)`,
        }
      return {
        ok: true,
        keeper: {
          id: origin,
          kept: () => stateOf(origin).live.add(session),
          // Kept sessions keep their origin remembered, so this is the set they were added to.
          released: () => origins.get(origin)?.live.delete(session),
        },
      }
    },
  }
}
