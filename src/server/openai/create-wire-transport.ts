/**
 * The transport of a `/v1` stream: each wire chunk to the bounded SSE writer (bound-stream-writes.ts),
 * nothing once the client has left, and what the client has been sent counted as it goes to the
 * stream, so a client that leaves has its reply stored, and its response kept, with exactly the
 * text it was sent (`readText`, `countChunksIfLeft`).
 */
import { appendText } from '../../shared/append-text.js'
import type { BoundedStreamWrites } from '../bound-stream-writes.js'
import type { TurnTransport } from '../turn-dialect.js'
import type { WireChunk } from './wire-format.js'

export interface SentText {
  /** The callback of a chunk given to the writer: it has gone to the stream. */
  track(chunk: WireChunk): () => void
  /** The display text sent so far, the chunk going to the stream now included. */
  readText(): string
  /** The chunks sent so far, the one going to the stream now included. */
  countChunks(): number
}

/**
 * What the client has been sent. The writer sends one chunk at a time, in order: the oldest chunk
 * not yet acknowledged is the one the stream is taking now, and a client that leaves meanwhile
 * has been handed it.
 */
export function createSentText(): SentText {
  const waiting: string[] = []
  let head = 0
  let text = ''
  return {
    track(chunk) {
      waiting.push(chunk.text ?? '')
      return () => {
        text = appendText(text, waiting[head] ?? '')
        head++
      }
    },
    readText: () => text + (waiting[head] ?? ''),
    countChunks: () => Math.min(waiting.length, head + 1),
  }
}

export interface CreateWireTransportOptions {
  writer: BoundedStreamWrites
  sent: SentText
  /** Whether the client has left (the stream was aborted). */
  isClosed(): boolean
}

export interface WireTransport extends TurnTransport<WireChunk> {
  /** The chunks the client was sent once it has left; undefined while it is there. */
  countChunksIfLeft(): number | undefined
}

export function createWireTransport(options: CreateWireTransportOptions): WireTransport {
  const { writer, sent, isClosed } = options
  return {
    write(chunk) {
      // After the client left the turn still runs to its end (stored as interrupted); nothing is sent.
      if (isClosed()) return
      const message =
        chunk.event === undefined ? { data: chunk.data } : { event: chunk.event, data: chunk.data }
      return writer.writeSSE(message, sent.track(chunk))
    },
    flushed: () => writer.flushed(),
    countChunksIfLeft: () => (isClosed() ? sent.countChunks() : undefined),
  }
}
