/**
 * Reads an Anthropic Messages SSE body (`event: <type>` + `data: {…}` … `message_stop`) into
 * batches of provider events, one batch per network read, with our strict SSE decoder (lines that
 * are no SSE field at all fail the stream instead of being skipped). A body that ends before
 * `message_stop` was cut midway and fails with `upstream_stream`. After `message_stop` nothing more
 * is read: a gateway that keeps the connection open must not hang the turn.
 */
import { UpstreamStreamError } from '../shared/errors.js'
import { createAnthropicEventParser } from './create-anthropic-event-parser.js'
import type { BodyPump } from './create-body-pump.js'
import type { RequestTimer } from './create-request-timer.js'
import { createSseDecoder } from './create-sse-decoder.js'
import { createUtf8Decoder } from './create-utf8-decoder.js'
import type { EventBatchSource } from './iterate-event-batches.js'
import type { ProviderEvent } from './types.js'

export interface AnthropicStreamReader extends EventBatchSource {
  /** Stops reading and releases the body. */
  cancel(): void
}

export interface CreateAnthropicStreamReaderOptions {
  body: BodyPump
  timer: RequestTimer
}

export function createAnthropicStreamReader(
  options: CreateAnthropicStreamReaderOptions,
): AnthropicStreamReader {
  const { body, timer } = options
  const textDecoder = createUtf8Decoder()
  const parser = createAnthropicEventParser()
  let out: ProviderEvent[] = []
  let over = false
  // A failure found mid-batch waits until the events parsed before it have been passed on.
  let pendingError: unknown

  const sse = createSseDecoder((event) => {
    if (parser.stopped) return
    timer.markChunk()
    parser.push(event, out)
  })

  const finish = (batch: ProviderEvent[]) => {
    over = true
    if (!parser.stopped) throw new UpstreamStreamError('upstream stream ended before message_stop')
    parser.end(batch)
    return batch
  }

  /** Decodes what one read brought; returns whether the reply is complete. */
  const decode = (chunks: Uint8Array[] | undefined): boolean => {
    if (!chunks) {
      sse.push(textDecoder.end())
      sse.end()
      return true
    }
    for (const chunk of chunks) sse.push(textDecoder.write(chunk))
    if (!parser.stopped) return false
    if (body.release) body.release()
    else body.cancel()
    return true
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
        return decode(chunks) ? finish(batch) : batch
      } catch (error) {
        if (batch.length === 0) throw error
        pendingError = error
        over = true
        return batch
      }
    },
    cancel() {
      over = true
      body.cancel()
    },
  }
}
