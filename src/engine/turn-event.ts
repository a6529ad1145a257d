/**
 * A turn's event as the engine passes it along, before its output completes it with the session,
 * the turn id and the trigger. The runner emits it, the event path (turn/turn-event-path.ts) and the
 * close (close-turn.ts) pass it on.
 */
import type { CharpipeEvent } from '../shared/events.js'

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

export type TurnEvent = DistributiveOmit<CharpipeEvent, 'session' | 'turn'>
export type EmitTurnEvent = (event: TurnEvent) => void
