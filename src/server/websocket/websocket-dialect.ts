/**
 * The WebSocket dialect (docs/protocol.md): each turn event as one frame, the event as the client
 * named its session; a turn that failed ends with an `error` frame. Frames stay objects here: the
 * transport (websocket-backpressure.ts) merges a lagging client's `llm_chunk` frames before it
 * writes their JSON.
 */
import type { CharpipeEvent } from '../../shared/events.js'
import { renameEventSession } from '../create-session-owners.js'
import { createTurnEnd, type ErrorFrame, type TurnDialect, turnFailedFrame } from '../turn-dialect.js'

/** A frame the server sends: a turn event, or an error that is not one. */
export type ServerFrame = CharpipeEvent | ErrorFrame

export function createWebSocketDialect(named: string): TurnDialect<ServerFrame> {
  const end = createTurnEnd()
  return {
    push(event) {
      if (end.isOver(event)) return []
      return [renameEventSession(event, named)]
    },
    finish: ({ threw }) => (threw ? [turnFailedFrame] : []),
  }
}
