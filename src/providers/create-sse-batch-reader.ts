/**
 * The read loop both streaming providers share: one batch of provider events per network read of
 * the body, through a UTF-8 decoder and our strict SSE decoder. Everything received before a
 * failure is passed on first: a failure found mid-batch waits for the next call, a broken connection
 * comes after the events read before it. An abort or timeout wins over data still queued (the
 * caller has stopped listening). Once the reply is complete nothing more is read and the body is
 * released: a gateway that keeps the connection open must not hang the turn.
 */
import type { BodyPump } from './create-body-pump.js'
import type { RequestTimer } from './create-request-timer.js'
import { createSseDecoder, type SseEvent } from './create-sse-decoder.js'
import { createUtf8Decoder } from './create-utf8-decoder.js'
import type { EventBatchSource } from './iterate-event-batches.js'
import type { ProviderEvent } from './types.js'

export interface SseBatchReader extends EventBatchSource {
  /** Stops reading and releases the body. */
  cancel(): void
}

export interface CreateSseBatchReaderOptions {
  body: BodyPump
  timer: RequestTimer
  /** Parses one SSE event into `out` (throws an `UpstreamStreamError` for one it cannot take). */
  onEvent(event: SseEvent, out: ProviderEvent[]): void
  /** Whether the reply is complete: events after it are ignored and the body is not read further. */
  isComplete(): boolean
  /** At the body's end or the reply's: throws when the reply was cut midway, else adds its last events. */
  finish(batch: ProviderEvent[]): void
}

export function createSseBatchReader(options: CreateSseBatchReaderOptions): SseBatchReader {
  const { body, timer } = options
  const textDecoder = createUtf8Decoder()
  let out: ProviderEvent[] = []
  let over = false
  // A failure found mid-batch waits until the events parsed before it have been passed on.
  let pendingError: unknown

  const sse = createSseDecoder((event) => {
    if (options.isComplete()) return
    timer.markChunk()
    options.onEvent(event, out)
  })

  const finish = (batch: ProviderEvent[]) => {
    over = true
    options.finish(batch)
    return batch
  }

  /** Decodes what one read brought (undefined: the body's end); returns whether the reply is complete. */
  const decode = (chunks: Uint8Array[] | undefined): boolean => {
    if (!chunks) {
      sse.push(textDecoder.end())
      sse.end()
      return true
    }
    for (const chunk of chunks) sse.push(textDecoder.write(chunk))
    if (!options.isComplete()) return false
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
