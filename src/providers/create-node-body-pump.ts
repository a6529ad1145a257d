/**
 * The `BodyPump` of a Node stream (the body of an answer of `createNodeFetch`): the same contract
 * as `createBodyPump` — chunks in arrival order, a transport failure only after the chunks received
 * before it — fed by the stream's `data` events, without a web stream or a promise per chunk.
 */
import type { Readable } from 'node:stream'
import type { BodyPump } from './create-body-pump.js'

export interface CreateNodeBodyPumpOptions {
  /** How long `release()` lets the body end by itself before closing it. @default 1000 */
  releaseGraceMs?: number
}

export function createNodeBodyPump(body: Readable, options: CreateNodeBodyPumpOptions = {}): BodyPump {
  let chunks: Uint8Array[] = []
  let ended = false
  let complete = false
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined

  const notify = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  const stop = (error?: unknown) => {
    if (ended) return
    ended = true
    if (error !== undefined) failure = { error }
    notify()
  }

  body.on('data', (chunk: Uint8Array) => {
    if (ended || chunk.byteLength === 0) return
    chunks.push(chunk)
    notify()
  })
  body.once('end', () => {
    complete = true
    stop()
  })
  body.once('error', (error) => stop(error))
  // A connection closed before `end` is a cut stream even when no error was emitted.
  body.once('close', () => stop(complete ? undefined : new Error('terminated')))

  return {
    async take() {
      while (chunks.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve))
      if (chunks.length > 0) {
        const taken = chunks
        chunks = []
        return taken
      }
      if (failure) throw failure.error
      return undefined
    },
    cancel() {
      chunks = []
      stop()
      // Still streaming: close the connection so the upstream stops generating.
      if (!complete) body.destroy()
    },
    release() {
      chunks = []
      stop()
      if (complete) return
      // The end of the body (the last chunk of the chunked encoding) often comes in the next packet.
      const timer = setTimeout(() => body.destroy(), options.releaseGraceMs ?? 1000)
      timer.unref()
      body.once('close', () => clearTimeout(timer))
    },
  }
}
