/**
 * Preflight: a session's turn prepared from an early transcript (`user_input` with `preflight:
 * true`) before the final one arrives. This folder owns the prepared turn's state in its session's
 * lane: at most one per session, replaced by a newer early transcript with other words (at most
 * `conversation.preflight_max_restarts` times per user turn, never sooner than
 * `preflight_min_interval_ms`), dropped after `preflight_timeout_ms` unless a final input takes it,
 * and counted apart (adopted, dropped and why, wasted model requests and tokens). The turn itself is
 * an ordinary one of the lane started with its authorization withheld (turn-authorization.ts): its
 * events, tools and storage wait for the final input to grant it.
 */
import type { AudienceClock } from '../../audience/types.js'
import type { TurnInput } from '../../context/types.js'
import { abortTurn, type TurnHandle } from '../session-lanes.js'
import type { PreflightDropReason, PreflightIgnoreReason, PreflightStats } from './preflight-stats.js'

export interface PreparedTurn {
  readonly session: string
  readonly handle: TurnHandle
  readonly input: TurnInput
  /** `preflightKeyOf(input)`: what a final input must match. */
  readonly key: string
}

export interface PreflightSettings {
  timeoutMs: number
  maxRestarts: number
  minIntervalMs: number
}

export type OfferResult = 'started' | 'kept' | PreflightIgnoreReason

export interface PreflightSlots {
  /**
   * An early transcript for `session`: starts a prepared turn with `start` unless the session is
   * busy, the prepared one has the same words (`kept`), or the restart cap or interval says no.
   */
  offer(options: {
    session: string
    key: string
    busy: boolean
    settings: PreflightSettings
    start: () => PreparedTurn
  }): OfferResult
  /** Counts an early transcript refused before it was offered (preflight switched off). */
  ignore(reason: PreflightIgnoreReason): void
  /** The session's prepared turn, taken for its final input (the restart count starts again). */
  take(session: string): PreparedTurn | undefined
  /** A prepared turn that can no longer be adopted: stops it and counts what it cost. */
  drop(prepared: PreparedTurn, reason: PreflightDropReason): void
  noteAdopted(prepared: PreparedTurn): void
  stats(): PreflightStats
}

interface SessionState {
  prepared: PreparedTurn
  restarts: number
  startedAt: number
  expiry: unknown
}

/** Whether a prepared turn can still be adopted: running or finished, not failed, not stopped. */
export function isAdoptable(prepared: PreparedTurn): boolean {
  return !prepared.handle.authorization.withheld.failed && !prepared.handle.controller.signal.aborted
}

/** Why a prepared turn that is not adoptable went unused. */
export function unusableReasonOf(prepared: PreparedTurn): PreflightDropReason {
  return prepared.handle.authorization.withheld.failed ? 'failed' : 'interrupted'
}

/** `clock`: the engine's; a prepared turn's expiry is its timer and the minimum interval its time. */
export function createPreflightSlots(clock: AudienceClock): PreflightSlots {
  const sessions = new Map<string, SessionState>()
  const accounted = new WeakSet<PreparedTurn>()
  const stats: PreflightStats = {
    started: 0,
    adopted: 0,
    dropped: { changed: 0, replaced: 0, expired: 0, failed: 0, interrupted: 0 },
    ignored: { disabled: 0, busy: 0, interval: 0, restarts: 0 },
    wastedRequests: 0,
    wastedTokens: { prompt: 0, completion: 0 },
  }

  const drop = (prepared: PreparedTurn, reason: PreflightDropReason) => {
    if (accounted.has(prepared)) return
    accounted.add(prepared)
    stats.dropped[reason]++
    abortTurn(prepared.handle, { kind: 'not_granted' })
    // What it cost is known once it has stopped (usage arrives with the end of a stream, if at all).
    void prepared.handle.ended.then(() => {
      stats.wastedRequests += prepared.handle.authorization.withheld.modelCalls
      stats.wastedTokens.prompt += prepared.handle.authorization.withheld.usage?.prompt_tokens ?? 0
      stats.wastedTokens.completion += prepared.handle.authorization.withheld.usage?.completion_tokens ?? 0
    })
  }

  const expire = (session: string, prepared: PreparedTurn) => {
    const state = sessions.get(session)
    if (state?.prepared !== prepared) return
    sessions.delete(session)
    drop(prepared, 'expired')
  }

  return {
    offer({ session, key, busy, settings, start }) {
      const state = sessions.get(session)
      if (busy) {
        stats.ignored.busy++
        return 'busy'
      }
      if (state && isAdoptable(state.prepared)) {
        if (state.prepared.key === key) return 'kept'
        if (state.restarts >= settings.maxRestarts) {
          stats.ignored.restarts++
          return 'restarts'
        }
        if (clock.now() - state.startedAt < settings.minIntervalMs) {
          stats.ignored.interval++
          return 'interval'
        }
      }
      if (state) {
        clock.clearTimer(state.expiry)
        drop(state.prepared, isAdoptable(state.prepared) ? 'replaced' : unusableReasonOf(state.prepared))
      }
      const prepared = start()
      stats.started++
      // Stopped from elsewhere (a new input on another server, close): counted now, not at expiry.
      prepared.handle.controller.signal.addEventListener(
        'abort',
        () => {
          if (prepared.handle.authorization.granted) return
          const current = sessions.get(session)
          if (current?.prepared === prepared) {
            clock.clearTimer(current.expiry)
            sessions.delete(session)
          }
          drop(prepared, 'interrupted')
        },
        { once: true },
      )
      const expiry = clock.setTimer(() => expire(session, prepared), settings.timeoutMs)
      sessions.set(session, {
        prepared,
        restarts: state ? state.restarts + 1 : 0,
        startedAt: clock.now(),
        expiry,
      })
      return 'started'
    },
    ignore(reason) {
      stats.ignored[reason]++
    },
    take(session) {
      const state = sessions.get(session)
      if (!state) return undefined
      sessions.delete(session)
      clock.clearTimer(state.expiry)
      return state.prepared
    },
    drop,
    noteAdopted(prepared) {
      accounted.add(prepared)
      stats.adopted++
    },
    stats: () => ({
      ...stats,
      dropped: { ...stats.dropped },
      ignored: { ...stats.ignored },
      wastedTokens: { ...stats.wastedTokens },
    }),
  }
}
