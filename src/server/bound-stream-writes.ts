/**
 * A byte budget for an HTTP stream's reader (SSE: `/api/chat`, `/v1/chat/completions` and
 * `/v1/responses` with `stream: true`). The route's writes never wait on the reader: what it has not
 * read waits here, counted in bytes, so the turn's events do not pile up unseen in the turn's queue
 * while the route awaits a write that a reader who stopped will never let through. Past
 * `maxBufferedBytes` the reader counts as gone, as over a WebSocket (websocket-backpressure.ts):
 * what waits is dropped, `onOverflow` runs once (the route cuts the connection) and the stream is
 * aborted, which interrupts the turn as a client that hangs up does.
 */
import type { Context } from 'hono'
import type { SSEStreamingApi } from 'hono/streaming'
import type { ServerDependencies } from './server-dependencies.js'

/** One SSE message, its text already made (so its size is known when it is queued). */
export interface StreamMessage {
  event?: string
  data: string
  id?: string
}

export interface BoundStreamWritesOptions {
  maxBufferedBytes: number
  onOverflow: (bufferedBytes: number) => void
}

export interface BoundedStreamWrites {
  /** Queues a message for the reader; resolves at once. `onWritten` runs once it goes to the stream. */
  writeSSE(message: StreamMessage, onWritten?: () => void): Promise<void>
  /** Resolves once every queued message has gone to the stream, or at once past the bound. */
  flushed(): Promise<void>
  /** Bytes waiting for the reader. */
  readonly bufferedBytes: number
}

// `event: `, `data: `, `id: `, the newlines: what a message adds to its fields' text.
const framingBytes = 24

const sizeOf = (message: StreamMessage) =>
  Buffer.byteLength(message.data) + (message.event?.length ?? 0) + (message.id?.length ?? 0) + framingBytes

export function boundStreamWrites(
  stream: SSEStreamingApi,
  options: BoundStreamWritesOptions,
): BoundedStreamWrites {
  let waiting: { message: StreamMessage; onWritten?: (() => void) | undefined }[] = []
  let head = 0
  let bufferedBytes = 0
  let overflowed = false
  let writing: Promise<void> | undefined

  const writeWaiting = async () => {
    while (head < waiting.length && !overflowed && !stream.aborted) {
      const { message, onWritten } = waiting[head]!
      waiting[head] = undefined as unknown as (typeof waiting)[number]
      head++
      await stream.writeSSE(message)
      bufferedBytes -= sizeOf(message)
      onWritten?.()
    }
    waiting = []
    head = 0
    writing = undefined
  }

  return {
    get bufferedBytes() {
      return bufferedBytes
    },
    writeSSE(message, onWritten) {
      if (overflowed || stream.aborted) return Promise.resolve()
      waiting.push({ message, onWritten })
      bufferedBytes += sizeOf(message)
      if (bufferedBytes > options.maxBufferedBytes) {
        overflowed = true
        const held = bufferedBytes
        waiting = []
        head = 0
        bufferedBytes = 0
        options.onOverflow(held)
        stream.abort()
        return Promise.resolve()
      }
      writing ??= writeWaiting()
      return Promise.resolve()
    },
    flushed() {
      if (overflowed) return Promise.resolve()
      return writing ?? Promise.resolve()
    },
  }
}

/**
 * A route's stream under `server.ws_max_buffered_bytes`: past it the reason is logged and the
 * connection cut (a client that does not read would not read the stream's end either).
 */
export function boundReaderOf(
  context: Context,
  stream: SSEStreamingApi,
  dependencies: Pick<ServerDependencies, 'configManager' | 'logger'>,
): BoundedStreamWrites {
  const maxBufferedBytes = dependencies.configManager.current().server.ws_max_buffered_bytes
  return boundStreamWrites(stream, {
    maxBufferedBytes,
    onOverflow(bufferedBytes) {
      const reason = `the client is not reading: more than ${maxBufferedBytes} bytes waiting`
      dependencies.logger.warn({ bufferedBytes }, `closing a stream: ${reason}`)
      ;(context.env as { outgoing?: { destroy(): void } } | undefined)?.outgoing?.destroy()
    },
  })
}
