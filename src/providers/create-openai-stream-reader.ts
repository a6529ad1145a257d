/**
 * Reads an OpenAI-format SSE body (`data: {chunk}` … `data: [DONE]`) into batches of provider
 * events, one batch per network read. Batches instead of an async generator keep the per-chunk cost
 * to one generator layer in the provider. A body that ends with neither `[DONE]` nor a
 * `finish_reason` was cut midway and fails with `upstream_stream`. The body is pumped eagerly
 * (`createBodyPump`), so that when the connection breaks, the events that arrived before the break
 * are passed on first and the transport error comes after them.
 */
import { UpstreamStreamError } from '../shared/errors.js'
import { excerptErrorBody } from '../shared/excerpt-error-body.js'
import { type BodyPump, createBodyPump } from './create-body-pump.js'
import { createOpenAIChunkParser } from './create-openai-chunk-parser.js'
import type { RequestTimer } from './create-request-timer.js'
import { createSseDecoder } from './create-sse-decoder.js'
import { createUtf8Decoder } from './create-utf8-decoder.js'
import type { ProviderEvent } from './types.js'

export interface OpenAIStreamReader {
  /** The events of the next network read (possibly none), or `undefined` once the stream is over. */
  next(): Promise<ProviderEvent[] | undefined>
  /** Stops reading and releases the body. */
  cancel(): void
}

export interface CreateOpenAIStreamReaderOptions {
  body: ReadableStream<Uint8Array> | null
  /** The body already as a pump (a Node message of `createNodeFetch`); `body` is then not read. */
  pump?: BodyPump
  timer: RequestTimer
}

export function createOpenAIStreamReader(options: CreateOpenAIStreamReaderOptions): OpenAIStreamReader {
  let pump = options.pump
  if (!pump) {
    if (!options.body) throw new UpstreamStreamError('upstream answered without a body')
    pump = createBodyPump(options.body)
  }
  const body = pump
  const textDecoder = createUtf8Decoder()
  const parser = createOpenAIChunkParser()
  const { timer } = options
  let out: ProviderEvent[] = []
  let sawDone = false
  let over = false
  // A failure found mid-batch waits until the events parsed before it have been passed on.
  let pendingError: unknown

  const sse = createSseDecoder((event) => {
    if (sawDone) return
    timer.markChunk()
    const data = event.data
    if (data === '[DONE]') {
      sawDone = true
      return
    }
    if (event.event === 'error') {
      const message = excerptErrorBody(data)
      throw new UpstreamStreamError(`upstream reported an error mid-stream${message ? `: ${message}` : ''}`)
    }
    let chunk: unknown
    try {
      chunk = JSON.parse(data)
    } catch {
      throw new UpstreamStreamError('upstream sent a data line that is not JSON')
    }
    parser.push(chunk, out)
  })

  const finish = (batch: ProviderEvent[]) => {
    over = true
    if (!sawDone && !parser.finished) {
      throw new UpstreamStreamError('upstream stream ended before the reply was complete (no [DONE])')
    }
    parser.end(batch)
    return batch
  }

  return {
    async next() {
      if (pendingError !== undefined) throw pendingError
      if (over) return undefined
      const batch: ProviderEvent[] = []
      out = batch
      let chunks: Uint8Array[] | undefined
      try {
        chunks = await body.take()
      } catch (error) {
        // Everything received before the break has been passed on; now the break itself.
        over = true
        throw error
      }
      // An abort or timeout wins over data still queued: the caller has stopped listening.
      if (timer.cause) throw timer.toError()
      try {
        if (!chunks) {
          sse.push(textDecoder.end())
          sse.end()
          return finish(batch)
        }
        for (const chunk of chunks) sse.push(textDecoder.write(chunk))
      } catch (error) {
        if (batch.length === 0) throw error
        pendingError = error
        over = true
        return batch
      }
      // After [DONE] nothing more counts; a gateway that keeps the connection open must not hang us.
      if (sawDone) {
        if (body.release) body.release()
        else body.cancel()
        return finish(batch)
      }
      return batch
    },
    cancel() {
      over = true
      body.cancel()
    },
  }
}
