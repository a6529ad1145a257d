/**
 * Per-session turn order (R6): turns of one session run one at a time, each starting once the one
 * before it has ended and been stored (so its history is visible); different sessions never wait on
 * each other. With `on_new_input: interrupt`, entering a lane aborts every turn already in it.
 */
import type { InterruptReason } from './run-turn.js'

export interface TurnHandle {
  readonly session: string
  readonly turn: string
  readonly controller: AbortController
  /** Set once the turn holds the lane (it is past the previous turn). */
  running: boolean
  /**
   * A turn prepared from an early transcript and not adopted yet: it is not a reply, so interrupts
   * pass it by and a preflight is not refused because of it.
   */
  preflight?: boolean
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
  turnsOf(session: string): TurnHandle[]
  all(): TurnHandle[]
  sessions(): string[]
}

export function abortTurn(handle: TurnHandle, reason: InterruptReason): void {
  handle.controller.abort(reason)
}

export function createSessionLanes(): SessionLanes {
  const lanes = new Map<string, Lane>()
  const releases = new WeakMap<TurnHandle, () => void>()

  return {
    enter(handle, mode) {
      let lane = lanes.get(handle.session)
      if (!lane) {
        lane = { tail: Promise.resolve(), handles: new Set() }
        lanes.set(handle.session, lane)
      }
      if (mode === 'interrupt') for (const other of lane.handles) abortTurn(other, { kind: 'new_input' })
      const previous = lane.tail
      lane.tail = new Promise<void>((resolve) => releases.set(handle, resolve))
      lane.handles.add(handle)
      return previous
    },
    leave(handle) {
      releases.get(handle)?.()
      const lane = lanes.get(handle.session)
      if (!lane) return
      lane.handles.delete(handle)
      // Nobody is chained behind an empty lane, so it can go.
      if (lane.handles.size === 0) lanes.delete(handle.session)
    },
    turnsOf: (session) => [...(lanes.get(session)?.handles ?? [])],
    all: () => [...lanes.values()].flatMap((lane) => [...lane.handles]),
    sessions: () => [...lanes.keys()],
  }
}
