/**
 * A byte budget for an HTTP stream's reader (SSE: `/api/chat`, `/v1/chat/completions` and
 * `/v1/responses` with `stream: true`). The route's writes never wait on the reader: what it has not
 * read waits here, counted in bytes, so the turn's events do not pile up unseen in the turn's queue
 * while the route awaits a write that a reader who stopped will never let through. What waits is
 * charged to the reader's account in the server's reader ledger (create-reader-ledger.ts) at every
 * write: each message's text as the heap holds it, its objects (estimate-held-bytes.ts) and, while
 * anything waits, the connection's unsent output. Past `maxBufferedBytes`, or when the server's
 * readers together pass `server.limits.buffered_bytes_total` and this one lags most, the reader
 * counts as gone, as over a WebSocket (websocket-backpressure.ts): what waits is dropped,
 * `onOverflow` runs once (the route cuts the connection) and the stream is aborted, which interrupts
 * the turn as a client that hangs up does.
 */
import type { Context } from 'hono'
import type { SSEStreamingApi } from 'hono/streaming'
import {
  createUnboundedReaderLedger,
  describeReaderCut,
  type ReaderCut,
  type ReaderLedger,
} from './create-reader-ledger.js'
import { estimateStringBytes, queuedMessageOverheadBytes } from './estimate-held-bytes.js'
import type { ServerDependencies } from './server-dependencies.js'

/** One SSE message, its text already made (so its size is known when it is queued). */
export interface StreamMessage {
  event?: string
  data: string
  id?: string
}

export interface BoundStreamWritesOptions {
  maxBufferedBytes: number
  /** Runs once when the reader is cut: past `maxBufferedBytes`, or as the ledger's most lagging reader. */
  onOverflow: (bufferedBytes: number, cut: ReaderCut) => void
  /** The server's readers together. @default a ledger of this stream alone (no total bound) */
  ledger?: ReaderLedger
  /** Bytes the connection has taken and not yet written out (the HTTP response's own buffer). */
  readSocketBytes?: () => number
}

export interface BoundedStreamWrites {
  /** Queues a message for the reader; resolves at once. `onWritten` runs once it goes to the stream. */
  writeSSE(message: StreamMessage, onWritten?: () => void): Promise<void>
  /** Resolves once every queued message has gone to the stream, or at once past the bound. */
  flushed(): Promise<void>
  /** Bytes charged for what waits for the reader (text and objects; the connection's output apart). */
  readonly bufferedBytes: number
}

// `event: `, `data: `, `id: `, the newlines: what a message adds to its fields' text.
const framingBytes = 24

/** What a waiting message costs: its text as the heap holds it (or as UTF-8, if more) and its objects. */
const sizeOf = (message: StreamMessage) =>
  Math.max(estimateStringBytes(message.data), Buffer.byteLength(message.data) + framingBytes) +
  (message.event?.length ?? 0) +
  (message.id?.length ?? 0) +
  queuedMessageOverheadBytes

export function boundStreamWrites(
  stream: SSEStreamingApi,
  options: BoundStreamWritesOptions,
): BoundedStreamWrites {
  let waiting: { message: StreamMessage; onWritten?: (() => void) | undefined }[] = []
  let head = 0
  let bufferedBytes = 0
  let overflowed = false
  let writing: Promise<void> | undefined

  const account = (options.ledger ?? createUnboundedReaderLedger()).open({
    maxBytes: options.maxBufferedBytes,
    onCut(cut) {
      overflowed = true
      waiting = []
      head = 0
      bufferedBytes = 0
      // Cut for the total while another reader's turn hands out an event: the stream (and its
      // turn) ends once that event's handling is over, not inside it.
      queueMicrotask(() => {
        options.onOverflow(cut.heldBytes, cut)
        stream.abort()
      })
    },
  })
  // The connection's output counts while something waits: once nothing does, the account holds
  // nothing and the ledger keeps nothing of this reader (a finished stream has no one to close it).
  const charge = () => {
    if (overflowed) return
    account.hold(bufferedBytes > 0 ? bufferedBytes + (options.readSocketBytes?.() ?? 0) : 0)
  }

  const writeWaiting = async () => {
    while (head < waiting.length && !overflowed && !stream.aborted) {
      const { message, onWritten } = waiting[head]!
      waiting[head] = undefined as unknown as (typeof waiting)[number]
      head++
      await stream.writeSSE(message)
      bufferedBytes -= sizeOf(message)
      charge()
      onWritten?.()
    }
    waiting = []
    head = 0
    writing = undefined
    // All written, or dropped for a stream that was aborted: the account holds nothing now.
    if (!overflowed) {
      bufferedBytes = 0
      charge()
    }
  }

  return {
    get bufferedBytes() {
      return bufferedBytes
    },
    writeSSE(message, onWritten) {
      if (overflowed || stream.aborted) return Promise.resolve()
      waiting.push({ message, onWritten })
      bufferedBytes += sizeOf(message)
      // Checked at every write: a reader is cut while the turn that fills it still runs.
      charge()
      if (overflowed) return Promise.resolve()
      writing ??= writeWaiting()
      return Promise.resolve()
    },
    flushed() {
      if (overflowed) return Promise.resolve()
      return writing ?? Promise.resolve()
    },
  }
}

interface Outgoing {
  writableLength?: number
  destroy(): void
}

/**
 * A route's stream under `server.ws_max_buffered_bytes` and the server's reader ledger
 * (`server.limits.buffered_bytes_total`): past either the reason is logged and the connection cut
 * (a client that does not read would not read the stream's end either).
 */
export function boundReaderOf(
  context: Context,
  stream: SSEStreamingApi,
  dependencies: Pick<ServerDependencies, 'configManager' | 'logger' | 'readerLedger'>,
): BoundedStreamWrites {
  const maxBufferedBytes = dependencies.configManager.current().server.ws_max_buffered_bytes
  const outgoing = (context.env as { outgoing?: Outgoing } | undefined)?.outgoing
  return boundStreamWrites(stream, {
    maxBufferedBytes,
    ...(dependencies.readerLedger ? { ledger: dependencies.readerLedger } : {}),
    readSocketBytes: () => outgoing?.writableLength ?? 0,
    onOverflow(bufferedBytes, cut) {
      const reason = describeReaderCut(cut)
      dependencies.logger.warn({ bufferedBytes, bound: cut.bound }, `closing a stream: ${reason}`)
      outgoing?.destroy()
    },
  })
}
