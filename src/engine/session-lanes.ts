/**
 * Per-session turn order (R6): turns of one session with one character run one at a time, each
 * starting once the one before it has ended and been stored (so its history is visible); different
 * sessions, and different characters in a session of the same id, never wait on each other. With
 * `on_new_input: interrupt`, entering a lane aborts every turn already in it.
 */
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import {
  createGrantedAuthorization,
  createWithheldAuthorization,
  type TurnAuthorization,
} from './turn-authorization.js'
import type { InterruptReason } from './turn-outcome.js'

export interface TurnHandle {
  readonly session: string
  /** The character's id (a key of `characters`); undefined for the default character. */
  character?: string
  readonly turn: string
  readonly controller: AbortController
  /** Set once the turn holds the lane (it is past the previous turn). */
  running: boolean
  /**
   * Whether the turn may speak and act (turn-authorization.ts). One not granted yet (started ahead
   * of its input) is not a reply: interrupts and busy checks pass it by.
   */
  readonly authorization: TurnAuthorization
  /**
   * In a cluster with `on_new_input: interrupt`: the input's number among its session's inputs on
   * every server (rejected when Redis did not number it: the turn then fails on its lock); its
   * turn takes the session's lock in that order.
   */
  order?: Promise<number>
  /** Resolves when the turn has ended and been stored. */
  ended: Promise<void>
}

interface Lane {
  tail: Promise<void>
  handles: Set<TurnHandle>
}

export interface SessionLanes {
  /** Queues the turn; resolves when the turn before it is finished. */
  enter(handle: TurnHandle, mode: 'interrupt' | 'queue'): Promise<void>
  /** The turn is finished: lets the next one start. */
  leave(handle: TurnHandle): void
  /** Turns of a session, of one character when `character` is given (`''`: the default), else of all. */
  turnsOf(session: string, character?: string): TurnHandle[]
  /** `turnsOf` without the prepared turns: the replies an interrupt or a busy check is about. */
  repliesOf(session: string, character?: string): TurnHandle[]
  all(): TurnHandle[]
  sessions(): string[]
}

/** A turn's handle before it enters its lane; `withheld`: started ahead of its input, not a reply yet. */
export function createTurnHandle(
  session: string,
  withheld: boolean,
  turn: string = randomUUID(),
  /** The engine's clock, which times the turn from its grant. */
  now: () => number = () => performance.now(),
): TurnHandle {
  return {
    session,
    turn,
    controller: new AbortController(),
    running: false,
    ended: Promise.resolve(),
    authorization: withheld ? createWithheldAuthorization(now) : createGrantedAuthorization(now),
  }
}

export function abortTurn(handle: TurnHandle, reason: InterruptReason): void {
  handle.controller.abort(reason)
}

export function createSessionLanes(): SessionLanes {
  const sessions = new Map<string, Map<string, Lane>>()
  const releases = new WeakMap<TurnHandle, () => void>()

  const turnsOf = (session: string, character?: string) => {
    const lanes = sessions.get(session)
    if (!lanes) return []
    if (character !== undefined) return [...(lanes.get(character)?.handles ?? [])]
    return [...lanes.values()].flatMap((lane) => [...lane.handles])
  }

  return {
    enter(handle, mode) {
      let lanes = sessions.get(handle.session)
      if (!lanes) {
        lanes = new Map()
        sessions.set(handle.session, lanes)
      }
      let lane = lanes.get(handle.character ?? '')
      if (!lane) {
        lane = { tail: Promise.resolve(), handles: new Set() }
        lanes.set(handle.character ?? '', lane)
      }
      if (mode === 'interrupt') for (const other of lane.handles) abortTurn(other, { kind: 'new_input' })
      const previous = lane.tail
      lane.tail = new Promise<void>((resolve) => releases.set(handle, resolve))
      lane.handles.add(handle)
      return previous
    },
    leave(handle) {
      releases.get(handle)?.()
      const lanes = sessions.get(handle.session)
      const lane = lanes?.get(handle.character ?? '')
      if (!lanes || !lane) return
      lane.handles.delete(handle)
      // Nobody is chained behind an empty lane, so it can go.
      if (lane.handles.size > 0) return
      lanes.delete(handle.character ?? '')
      if (lanes.size === 0) sessions.delete(handle.session)
    },
    turnsOf,
    repliesOf: (session, character) =>
      turnsOf(session, character).filter((handle) => handle.authorization.granted),
    all: () =>
      [...sessions.values()].flatMap((lanes) => [...lanes.values()].flatMap((lane) => [...lane.handles])),
    sessions: () => [...sessions.keys()],
  }
}
