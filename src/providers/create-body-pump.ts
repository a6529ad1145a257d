/**
 * Reads a response body as fast as the network delivers it, into a queue of our own, and keeps a
 * transport failure back until every chunk that arrived before it has been taken.
 *
 * Why: fetch (undici) errors the body stream the moment the connection breaks, and an errored
 * `ReadableStream` throws away the chunks still queued in it. An upstream that writes a few chunks
 * and then cuts the connection at once would lose text that had already arrived, and the caller
 * would see only the error. With a read always pending, each chunk leaves the fetch stream as soon
 * as it is received. The queue is bounded (create-chunk-queue.ts): past its bound no read is pending
 * until the queue is taken, so a model faster than the turn is not read far ahead of it. The price:
 * a connection that breaks while the pump waits for room loses what fetch itself had buffered by
 * then (the queue's chunks still come first), where the turn lags by the whole bound anyway.
 */

import { createChunkQueue } from './create-chunk-queue.js'

export interface BodyPump {
  /**
   * Resolves with every chunk received since the last call (never an empty list), or `undefined`
   * once the body has ended cleanly and everything was taken. Rejects with the transport error
   * only after the chunks received before it have been taken.
   */
  take(): Promise<Uint8Array[] | undefined>
  /** Stops reading, drops what is queued and releases the body. */
  cancel(reason?: unknown): void
  /**
   * The caller needs nothing more (the reply is complete): like `cancel`, except that a body about
   * to end may still end by itself, so that its kept-alive connection can be used again.
   */
  release?(): void
}

export function createBodyPump(body: ReadableStream<Uint8Array>): BodyPump {
  const reader = body.getReader()
  const queue = createChunkQueue()

  const pump = async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        if (!queue.push(value)) await new Promise<void>((resolve) => queue.onceRoom(resolve))
      }
      queue.end()
    } catch (error) {
      queue.end(error)
    }
  }
  void pump()

  return {
    take: () => queue.take(),
    cancel(reason) {
      queue.clear()
      queue.end()
      reader.cancel(reason).catch(() => {})
    },
  }
}
