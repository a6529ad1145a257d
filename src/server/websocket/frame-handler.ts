/**
 * What a frame kind is registered with in the dispatcher's table (frame-handlers.ts): the doors it
 * enters by (src/admission/doors.ts), the budget it takes before its admission, and its handler.
 * The dispatcher (dispatch-frame.ts) runs them in that order, so a handler only ever sees a frame
 * that was parsed, counted and admitted.
 */
import type { Door } from '../../admission/index.js'
import type { AudienceMessage } from '../../audience/types.js'
import type { StartTurnResult } from '../create-turn-limiter.js'
import type { ClientFrame } from '../request-schemas.js'
import type { EnteredSession } from '../websocket-audience.js'
import type { WebSocketConnection } from './websocket-connection.js'

export type FrameType = ClientFrame['type']
export type FrameOf<Type extends FrameType> = Extract<ClientFrame, { type: Type }>

/** A turn slot the frame holds while its handler runs; `release` when it ends. */
export type FrameSlot = { release(): void }

export interface HandleFrameOptions<Type extends FrameType> {
  connection: WebSocketConnection
  frame: FrameOf<Type>
  /** The session as the client named it (`default` when it named none). */
  named: string
  /** The engine's session and messages, as admitted. */
  entered: EnteredSession
  /** The slot `budget` took; a no-op when it takes none. */
  slot: FrameSlot
}

export interface FrameHandler<Type extends FrameType> {
  /** Every door this kind may enter by; the first unless `selectDoor` picks another. */
  doors: readonly [Door, ...Door[]]
  selectDoor?(frame: FrameOf<Type>): Door
  /** Refused (`rate_limited`) when the connection cannot follow one more session. */
  needsFollow?: boolean
  /** The audience messages the admission checks (and may drop). */
  readMessages?(frame: FrameOf<Type>): readonly AudienceMessage[]
  /** What the frame takes before its admission (a turn slot); refused with its message. */
  budget?(connection: WebSocketConnection, frame: FrameOf<Type>): StartTurnResult
  /** Its failures are its own to tell; anything it throws or rejects with is caught by the dispatcher. */
  handle(options: HandleFrameOptions<Type>): void | Promise<void>
}

/** Declares a frame kind's registration (types it against its frame). */
export function defineFrameHandler<Type extends FrameType>(
  _type: Type,
  handler: FrameHandler<Type>,
): FrameHandler<Type> {
  return handler
}
