/**
 * The `BodyPump` of a Node stream (the body of an answer of `createNodeFetch`): the same contract
 * as `createBodyPump` — chunks in arrival order, a transport failure only after the chunks received
 * before it — fed by the stream's `data` events, without a web stream or a promise per chunk.
 */
import type { Readable } from 'node:stream'
import type { BodyPump } from './create-body-pump.js'
import { createChunkQueue } from './create-chunk-queue.js'

export interface CreateNodeBodyPumpOptions {
  /** How long `release()` lets the body end by itself before closing it. @default 1000 */
  releaseGraceMs?: number
}

export function createNodeBodyPump(body: Readable, options: CreateNodeBodyPumpOptions = {}): BodyPump {
  const queue = createChunkQueue()
  let complete = false

  body.on('data', (chunk: Uint8Array) => queue.push(chunk))
  body.once('end', () => {
    complete = true
    queue.end()
  })
  body.once('error', (error) => queue.end(error))
  // A connection closed before `end` is a cut stream even when no error was emitted.
  body.once('close', () => queue.end(complete ? undefined : new Error('terminated')))

  return {
    take: () => queue.take(),
    cancel() {
      queue.clear()
      queue.end()
      // Still streaming: close the connection so the upstream stops generating.
      if (!complete) body.destroy()
    },
    release() {
      queue.clear()
      queue.end()
      if (complete) return
      // The end of the body (the last chunk of the chunked encoding) often comes in the next packet.
      const timer = setTimeout(() => body.destroy(), options.releaseGraceMs ?? 1000)
      timer.unref()
      body.once('close', () => clearTimeout(timer))
    },
  }
}
