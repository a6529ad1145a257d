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
import { createSseBatchReader, type SseBatchReader } from './create-sse-batch-reader.js'
import { createPlainContentReader } from './read-plain-content-delta.js'

export type OpenAIStreamReader = SseBatchReader

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
  const parser = createOpenAIChunkParser()
  const readPlainContent = createPlainContentReader()
  let sawDone = false
  return createSseBatchReader({
    body: pump,
    timer: options.timer,
    onEvent(event, out) {
      const data = event.data
      if (data === '[DONE]') {
        sawDone = true
        return
      }
      if (event.event === 'error') {
        const message = excerptErrorBody(data)
        throw new UpstreamStreamError(`upstream reported an error mid-stream${message ? `: ${message}` : ''}`)
      }
      // Most chunks of a reply: their content is read without building the chunk's objects.
      const content = readPlainContent(data)
      if (content !== undefined) {
        parser.pushContent(content, out)
        return
      }
      let chunk: unknown
      try {
        chunk = JSON.parse(data)
      } catch {
        throw new UpstreamStreamError('upstream sent a data line that is not JSON')
      }
      parser.push(chunk, out)
    },
    isComplete: () => sawDone,
    finish(batch) {
      if (!sawDone && !parser.finished) {
        throw new UpstreamStreamError('upstream stream ended before the reply was complete (no [DONE])')
      }
      parser.end(batch)
    },
  })
}
