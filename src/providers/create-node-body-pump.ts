/**
 * The `BodyPump` of a Node stream (the body of an answer of `createNodeFetch`): the same contract
 * as `createBodyPump` — chunks in arrival order, a transport failure only after the chunks received
 * before it, at most about a queue's bound read ahead — fed by the stream's `data` events, without a
 * web stream or a promise per chunk. Past the bound the stream is paused until the queue is taken.
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

  const resume = () => body.resume()
  body.on('data', (chunk: Uint8Array) => {
    if (queue.push(chunk)) return
    body.pause()
    queue.onceRoom(resume)
  })
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
      // A body paused at the queue's bound flows again now (the queue ended): it may reach its end.
      if (complete) return
      // The end of the body (the last chunk of the chunked encoding) often comes in the next packet.
      const timer = setTimeout(() => body.destroy(), options.releaseGraceMs ?? 1000)
      timer.unref()
      body.once('close', () => clearTimeout(timer))
    },
  }
}
