/**
 * A dialect of the server's own protocol (the WebSocket frames, the `/api/chat` SSE events): a pure
 * mapper from a turn's events to what its transport writes, and what it writes when the turn
 * failed. drive-turn.ts runs a turn through a dialect into a transport. The `/v1` endpoints have
 * their wire formats instead (openai/wire-format.ts): they also build and keep an answer.
 */
import type { CharpipeEvent } from '../shared/events.js'

export interface TurnDialect<Chunk> {
  /** The chunks of one turn event, in order. Nothing follows the turn's `llm_done` (docs/protocol.md). */
  push(event: CharpipeEvent): Chunk[]
  /** The chunks that say the turn failed (it ended by throwing, without its `llm_done`). */
  fail(): Chunk[]
}

/** Where a dialect's chunks go: the WebSocket (websocket-backpressure.ts), an SSE stream (bound-stream-writes.ts). */
export interface TurnTransport<Chunk> {
  /** Sends or queues one chunk; it never waits on the reader. */
  write(chunk: Chunk): void
  /** Resolves once what was written has gone to the stream. @default at once */
  flushed?(): Promise<void>
}

/** Error frames of the protocol that are not turn events. */
export interface ErrorFrame {
  type: 'error'
  code: string
  message: string
  session?: string
}

/** The answer to a turn that failed inside the server: its cause is in the log, not the client's. */
export const turnFailedFrame: ErrorFrame = {
  type: 'error',
  code: 'internal',
  message: 'the turn failed; see the server log',
}

/**
 * Whether a turn is over: its `llm_done` was seen. The protocol's promise that nothing follows it
 * is kept by the dialects whatever the engine hands on.
 */
export function createTurnEnd(): { isOver(event: CharpipeEvent): boolean } {
  let over = false
  return {
    isOver(event) {
      if (over) return true
      if (event.type === 'llm_done') over = true
      return false
    },
  }
}
