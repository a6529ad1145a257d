/**
 * Backpressure for one WebSocket: what the server has written and the client has not read yet stays
 * bounded in bytes, whatever the number of events. Below `coalesceAboveBytes` of buffered output
 * every event goes out as it comes. Above it (the client lags: a slow network, a paused tab) nothing
 * more is handed to the socket until it drains: the events wait here, in order, as the UTF-8 of their
 * frames in one growing buffer, with the `llm_chunk` deltas of a turn merged into one as they come
 * (never thousands of small strings or frames: a reply in 6-character pieces is ~34,000 of them, and
 * each frame handed to a socket costs its own objects besides its bytes). When the socket drains they
 * go out, in order, until the socket holds `coalesceAboveBytes` again. Everything held for the client
 * is charged to its account in the reader ledger (create-reader-ledger.ts) at every event: the
 * socket's buffered output, an estimate of the objects of each frame still in the socket
 * (estimate-held-bytes.ts) and the size of the buffers here, what is really allocated. Past
 * `maxBufferedBytes`, or when the server's readers together pass their bound and this one lags most,
 * the client is cut: what is held here is dropped, `onOverflow` runs once (the route interrupts the
 * socket's turns, which are stored as interrupted, and closes the socket with a reason) and nothing
 * more is queued. A closed socket's buffers and account are let go at once (`dispose`).
 */
import type { Writable } from 'node:stream'
import type { WSContext } from 'hono/ws'
import type { CharpipeEvent } from '../shared/events.js'
import type { Logger } from '../shared/logger.js'
import {
  createUnboundedReaderLedger,
  describeReaderCut,
  type ReaderCut,
  type ReaderLedger,
} from './create-reader-ledger.js'
import { socketFrameOverheadBytes } from './estimate-held-bytes.js'

/** The little of a socket this needs; the route adapts the `ws` socket to it. */
export interface BackpressureTransport {
  /** Bytes written and not yet handed to the network. */
  bufferedAmount(): number
  send(text: string): void
  /** Calls `listener` once when the buffered output has been written out. */
  onceDrained(listener: () => void): void
}

export interface CreateWebSocketBackpressureOptions {
  transport: BackpressureTransport
  /** Past this many buffered bytes the client counts as gone. */
  maxBufferedBytes: number
  /** From this many buffered bytes events wait here, chunks merged. @default maxBufferedBytes / 16, at most 64 KiB */
  coalesceAboveBytes?: number
  /** Runs once when the client is cut: past `maxBufferedBytes`, or as the ledger's most lagging reader. */
  onOverflow: (bufferedBytes: number, cut: ReaderCut) => void
  /** The server's readers together. @default a ledger of this socket alone (no total bound) */
  ledger?: ReaderLedger
}

export interface WebSocketBackpressure {
  /** Sends an event, or holds it (merging a chunk into its turn's) while the client lags. */
  sendEvent(event: CharpipeEvent): void
  /** Sends any other payload (error frames), in order with the events. */
  sendPayload(payload: unknown): void
  /** Whether the bound was passed (nothing more is sent). */
  readonly overflowed: boolean
  /** Bytes allocated here for what waits for the socket to drain. */
  readonly heldBytes: number
  /** What is charged to the ledger for this client: the socket's output, its frames and `heldBytes`. */
  readonly chargedBytes: number
  /** The socket closed: what is held is let go, and nothing more is sent. */
  dispose(): void
}

type ChunkEvent = Extract<CharpipeEvent, { type: 'llm_chunk' }>

/** Bytes written into a buffer that grows as they come. */
interface GrowingBytes {
  bytes: Buffer
  length: number
}

/** The chunks of one turn arriving in a row: the first one's event and all their text, as UTF-8. */
interface OpenChunk extends GrowingBytes {
  event: ChunkEvent
  /** A high surrogate that ended the last piece: encoded with the low one that follows. */
  carry: string
}

// The first buffer of a lagging socket; each growth doubles it.
const firstHeldBytes = 4096
// Each held frame: its length (4 bytes), then its UTF-8.
const frameHeaderBytes = 4
// The merged chunk's event and state: a few small objects.
const openChunkOverheadBytes = 256

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const emptyBytes = (): GrowingBytes => ({ bytes: Buffer.alloc(0), length: 0 })

export function createWebSocketBackpressure(
  options: CreateWebSocketBackpressureOptions,
): WebSocketBackpressure {
  const { transport, maxBufferedBytes } = options
  const coalesceAbove = options.coalesceAboveBytes ?? Math.min(64 * 1024, Math.floor(maxBufferedBytes / 16))
  // The frames waiting, in order; `sentUpTo`: how far they have gone out.
  let frames = emptyBytes()
  let sentUpTo = 0
  // The merged chunk at the end of the queue, still growing.
  let open: OpenChunk | undefined
  let waitingForDrain = false
  let overflowed = false
  // The capacity of the buffers here: what holding costs, not what the text would.
  let heldBytes = 0
  // Frames handed to the socket since its output was last seen empty: each keeps objects there.
  let socketFrames = 0

  const socketBytes = () => {
    const buffered = transport.bufferedAmount()
    if (buffered === 0) socketFrames = 0
    return buffered + socketFrames * socketFrameOverheadBytes
  }
  const chargedBytes = () =>
    socketBytes() + heldBytes + (open ? openChunkOverheadBytes + open.carry.length * 2 : 0)
  const account = (options.ledger ?? createUnboundedReaderLedger()).open({
    maxBytes: maxBufferedBytes,
    onCut(cut) {
      overflowed = true
      dropHeld()
      options.onOverflow(cut.heldBytes, cut)
    },
  })
  // Every change is charged at once: the bounds are checked while the load that fills them runs.
  const checkBudget = () => {
    if (!overflowed) account.hold(chargedBytes())
  }
  const dropHeld = () => {
    frames = emptyBytes()
    sentUpTo = 0
    open = undefined
    heldBytes = 0
  }
  /** Room for `extra` more bytes: doubled, but not past what the budget has left unless needed. */
  const makeRoom = (target: GrowingBytes, extra: number) => {
    const needed = target.length + extra
    if (needed <= target.bytes.length) return
    const left = maxBufferedBytes - chargedBytes() + target.bytes.length
    const doubled = Math.max(target.bytes.length * 2, firstHeldBytes)
    // Sized exactly (not from the shared pool), so the budget is what is allocated.
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, Math.min(doubled, left)))
    target.bytes.copy(grown, 0, 0, target.length)
    heldBytes += grown.length - target.bytes.length
    target.bytes = grown
  }
  const queueFrame = (text: string) => {
    const size = Buffer.byteLength(text)
    makeRoom(frames, frameHeaderBytes + size)
    frames.bytes.writeUInt32LE(size, frames.length)
    frames.length += frameHeaderBytes
    frames.length += frames.bytes.write(text, frames.length)
  }
  const closeOpenChunk = () => {
    if (!open) return
    const chunk = open
    open = undefined
    const text = chunk.bytes.toString('utf8', 0, chunk.length) + chunk.carry
    heldBytes -= chunk.bytes.length
    queueFrame(JSON.stringify({ ...chunk.event, text }))
  }
  const holdChunk = (event: ChunkEvent) => {
    if (open && open.event.turn !== event.turn) closeOpenChunk()
    open ??= { event: { ...event, text: '' }, ...emptyBytes(), carry: '' }
    let text = open.carry + event.text
    open.carry = ''
    if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      open.carry = text.slice(-1)
      text = text.slice(0, -1)
    }
    makeRoom(open, Buffer.byteLength(text))
    open.length += open.bytes.write(text, open.length)
  }
  const isHolding = () => open !== undefined || sentUpTo < frames.length
  /** Sends what waits, in order, until the socket holds `coalesceAbove` again. */
  const flush = () => {
    waitingForDrain = false
    if (overflowed) return
    // Drained: the socket's output was written out, and its frames' objects with it.
    socketFrames = 0
    closeOpenChunk()
    while (sentUpTo < frames.length && socketBytes() <= coalesceAbove) {
      const size = frames.bytes.readUInt32LE(sentUpTo)
      const from = sentUpTo + frameHeaderBytes
      sentUpTo = from + size
      transport.send(frames.bytes.toString('utf8', from, sentUpTo))
      socketFrames++
    }
    if (sentUpTo < frames.length) {
      // What went out leaves the buffer; the rest moves to its start.
      frames.bytes.copyWithin(0, sentUpTo, frames.length)
      frames.length -= sentUpTo
      sentUpTo = 0
      waitForDrain()
    } else {
      // Everything went out: the buffer goes too (a socket that lagged once does not keep it).
      heldBytes -= frames.bytes.length
      frames = emptyBytes()
      sentUpTo = 0
    }
    checkBudget()
  }
  const waitForDrain = () => {
    if (waitingForDrain) return
    waitingForDrain = true
    transport.onceDrained(flush)
  }
  const send = (text: string | undefined, chunk?: ChunkEvent) => {
    if (overflowed) return
    // Many small frames in the socket cost more than their bytes: their objects count towards it.
    if (!isHolding() && socketBytes() <= coalesceAbove) {
      transport.send(text ?? JSON.stringify(chunk))
      socketFrames++
    } else {
      if (chunk) holdChunk(chunk)
      else {
        closeOpenChunk()
        queueFrame(text!)
      }
      waitForDrain()
    }
    checkBudget()
  }

  return {
    get overflowed() {
      return overflowed
    },
    get heldBytes() {
      return heldBytes
    },
    get chargedBytes() {
      return overflowed ? 0 : chargedBytes()
    },
    dispose() {
      overflowed = true
      dropHeld()
      account.close()
    },
    sendEvent(event) {
      if (event.type === 'llm_chunk') send(undefined, event)
      else send(JSON.stringify(event))
    },
    sendPayload(payload) {
      send(JSON.stringify(payload))
    },
  }
}

interface RawWebSocket {
  bufferedAmount: number
  _socket?: Writable
  terminate?: () => void
}

export interface AttachWebSocketBackpressureOptions {
  maxBufferedBytes: number
  /** Runs once past the bound, before the socket is closed (interrupt the socket's turns here). */
  onOverflow: () => void
  logger: Logger
  /** The server's readers together (`server.limits.buffered_bytes_total`). */
  ledger?: ReaderLedger
}

/**
 * Backpressure on a `ws` socket behind Hono's `WSContext`; undefined when the socket is not one (no
 * byte count to watch). Past the bound the socket is closed with code 1008 and a reason, and cut a
 * second later: a client that does not read would not read the close frame either.
 */
export function attachWebSocketBackpressure(
  socket: WSContext,
  options: AttachWebSocketBackpressureOptions,
): WebSocketBackpressure | undefined {
  const raw = socket.raw as RawWebSocket | undefined
  if (!raw || typeof raw.bufferedAmount !== 'number') return undefined
  return createWebSocketBackpressure({
    maxBufferedBytes: options.maxBufferedBytes,
    ...(options.ledger ? { ledger: options.ledger } : {}),
    transport: {
      bufferedAmount: () => raw.bufferedAmount,
      send: (text) => socket.send(text),
      onceDrained(listener) {
        // 'drain' comes only after the socket's output passed its own high-water mark; below it
        // (frames counted by their objects, not their bytes), look again once the loop turns.
        if (raw._socket?.writableNeedDrain) raw._socket.once('drain', listener)
        else setImmediate(listener)
      },
    },
    onOverflow(bufferedBytes, cut) {
      const reason = describeReaderCut(cut)
      options.logger.warn({ bufferedBytes, bound: cut.bound }, `closing a websocket: ${reason}`)
      // A reader is cut for the total while another reader's turn hands out an event: its turns
      // are interrupted once that event's handling is over, not inside it.
      queueMicrotask(() => {
        options.onOverflow()
        socket.close(1008, reason.slice(0, 123))
        setTimeout(() => raw.terminate?.(), 1000).unref()
      })
    },
  })
}
