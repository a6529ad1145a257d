/**
 * A dialect: a pure mapper from a turn's events to what its transport writes, and its finish. The
 * server's own protocol has two (the WebSocket frames, the `/api/chat` SSE events); the `/v1`
 * endpoints have theirs built on their wire formats (openai/wire-format.ts), whose finish keeps
 * the answer before it says it is done. drive-turn.ts runs a turn through a dialect into a transport.
 */
import type { CharpipeEvent } from '../shared/events.js'

/** How a turn ended, as its dialect's finish is told. */
export interface TurnOutcome {
  /** The turn threw: it ended without its `llm_done`. */
  threw: boolean
}

export interface TurnDialect<Chunk> {
  /** The chunks that open the stream, before the turn's first event. @default none */
  start?(): Chunk[]
  /** The chunks of one turn event, in order. Nothing follows the turn's `llm_done` (docs/protocol.md). */
  push(event: CharpipeEvent): Chunk[]
  /**
   * The chunks that end the stream, asked once, after the last event or what the turn threw. A
   * dialect that keeps something first answers with a promise: its chunks go out once it is kept.
   */
  finish(outcome: TurnOutcome): Chunk[] | Promise<Chunk[]>
}

/** Where a dialect's chunks go: the WebSocket (websocket-backpressure.ts), an SSE stream (bound-stream-writes.ts). */
export interface TurnTransport<Chunk> {
  /**
   * Sends or queues one chunk. A promise makes a pulled turn wait for it before its next event
   * (the `/v1` reader's bound); a pushed turn never waits.
   */
  write(chunk: Chunk): void | Promise<void>
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
