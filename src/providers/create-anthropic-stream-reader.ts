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
import { createSseBatchReader, type SseBatchReader } from './create-sse-batch-reader.js'

export type AnthropicStreamReader = SseBatchReader

export interface CreateAnthropicStreamReaderOptions {
  body: BodyPump
  timer: RequestTimer
}

export function createAnthropicStreamReader(
  options: CreateAnthropicStreamReaderOptions,
): AnthropicStreamReader {
  const parser = createAnthropicEventParser()
  return createSseBatchReader({
    ...options,
    onEvent: (event, out) => parser.push(event, out),
    isComplete: () => parser.stopped,
    finish(batch) {
      if (!parser.stopped) throw new UpstreamStreamError('upstream stream ended before message_stop')
      parser.end(batch)
    },
  })
}
