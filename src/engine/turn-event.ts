/**
 * The shapes a turn's events travel in: the event as the engine passes it along (before its output
 * completes it with the session, the turn id and the trigger), a stage of the turn's event path, and
 * the sink at its end. The runner emits events, the event path (turn/turn-event-path.ts) and the
 * close (close-turn.ts) pass them on, and the one who started the turn gives the sink.
 */
import type { CharpipeEvent } from '../shared/events.js'

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

export type TurnEvent = DistributiveOmit<CharpipeEvent, 'session' | 'turn'>
export type EmitTurnEvent = (event: TurnEvent) => void

/** One stage of a turn's event path: given the rest of the path, what an event goes through here. */
export type TurnEventPathStage = (next: EmitTurnEvent) => EmitTurnEvent

/** Where a turn's events go in the end, `close` after `llm_done`. */
export interface TurnSink {
  push(event: CharpipeEvent): void
  close(): void
}
