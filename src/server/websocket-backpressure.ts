/**
 * Backpressure for one WebSocket: what the server has written and the client has not read yet stays
 * bounded. Below `coalesceAboveBytes` of buffered output every event goes out as it comes. Above it
 * (the client lags: a slow network, a paused tab) the `llm_chunk` deltas of a turn are held and
 * merged into one, sent before that turn's next other event or when the socket drains, so a lagging
 * client gets fewer, larger frames and the text stays the same. Held text is joined as it comes,
 * into one growing UTF-8 buffer per turn (never thousands of small strings), and the budget counts
 * what those buffers really take. Everything held for the client counts in one byte budget: the
 * socket's buffered output and the buffers waiting here. Past
 * `maxBufferedBytes` the client is not reading at all: what is held here is dropped, `onOverflow`
 * runs once (the route interrupts the socket's turns, which are stored as interrupted, and closes
 * the socket with a reason) and nothing more is queued.
 */
import type { Writable } from 'node:stream'
import type { WSContext } from 'hono/ws'
import type { CharpipeEvent } from '../shared/events.js'
import type { Logger } from '../shared/logger.js'

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
  /** From this many buffered bytes chunks are merged. @default maxBufferedBytes / 16, at most 64 KiB */
  coalesceAboveBytes?: number
  onOverflow: (bufferedBytes: number) => void
}

export interface WebSocketBackpressure {
  /** Sends an event, or merges it into the pending chunk of its turn while the client lags. */
  sendEvent(event: CharpipeEvent): void
  /** Sends any other payload (error frames), after the pending chunks. */
  sendPayload(payload: unknown): void
  /** Whether the bound was passed (nothing more is sent). */
  readonly overflowed: boolean
  /** Bytes allocated here for merged text waiting for the socket to drain. */
  readonly heldBytes: number
  /** The socket closed: what is held is let go, and nothing more is sent. */
  dispose(): void
}

type ChunkEvent = Extract<CharpipeEvent, { type: 'llm_chunk' }>

/** A turn's held chunks: the first chunk's event and the text of all of them, as UTF-8. */
interface HeldChunk {
  event: ChunkEvent
  bytes: Buffer
  length: number
  /** A high surrogate that ended the last piece: encoded with the low one that follows. */
  carry: string
}

// The first buffer of a turn that lags; each growth doubles it.
const firstHeldBytes = 4096

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

export function createWebSocketBackpressure(
  options: CreateWebSocketBackpressureOptions,
): WebSocketBackpressure {
  const { transport, maxBufferedBytes } = options
  const coalesceAbove = options.coalesceAboveBytes ?? Math.min(64 * 1024, Math.floor(maxBufferedBytes / 16))
  // Held chunks by turn, in the order their turns first lagged.
  const pending = new Map<string, HeldChunk>()
  let waitingForDrain = false
  let overflowed = false
  // The capacity of every held buffer: what holding costs, not what the text would.
  let heldBytes = 0

  const overflow = (bytes: number) => {
    overflowed = true
    pending.clear()
    heldBytes = 0
    options.onOverflow(bytes)
  }
  const write = (text: string) => {
    if (overflowed) return
    transport.send(text)
    const total = transport.bufferedAmount() + heldBytes
    if (total > maxBufferedBytes) overflow(total)
  }
  const hold = (held: HeldChunk, piece: string) => {
    let text = held.carry + piece
    held.carry = ''
    if (text.length > 0 && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      held.carry = text.slice(-1)
      text = text.slice(0, -1)
    }
    const needed = held.length + Buffer.byteLength(text)
    if (needed > held.bytes.length) {
      // Doubled, but not past what the budget has left unless the text itself needs it; sized
      // exactly (not from the shared pool), so the budget is what is allocated.
      const left = maxBufferedBytes - transport.bufferedAmount() - heldBytes + held.bytes.length
      const doubled = Math.max(held.bytes.length * 2, firstHeldBytes)
      const grown = Buffer.allocUnsafeSlow(Math.max(needed, Math.min(doubled, left)))
      held.bytes.copy(grown, 0, 0, held.length)
      heldBytes += grown.length - held.bytes.length
      held.bytes = grown
    }
    held.length += held.bytes.write(text, held.length)
    const total = transport.bufferedAmount() + heldBytes
    if (total > maxBufferedBytes) overflow(total)
  }
  const flushTurn = (turn: string) => {
    const held = pending.get(turn)
    if (!held) return
    pending.delete(turn)
    heldBytes -= held.bytes.length
    const text = held.bytes.toString('utf8', 0, held.length) + held.carry
    write(JSON.stringify({ ...held.event, text }))
  }
  const flushAll = () => {
    waitingForDrain = false
    for (const turn of [...pending.keys()]) flushTurn(turn)
  }
  const waitForDrain = () => {
    if (waitingForDrain) return
    waitingForDrain = true
    transport.onceDrained(flushAll)
  }

  return {
    get overflowed() {
      return overflowed
    },
    get heldBytes() {
      return heldBytes
    },
    dispose() {
      overflowed = true
      pending.clear()
      heldBytes = 0
    },
    sendEvent(event) {
      if (overflowed) return
      if (event.type === 'llm_chunk') {
        const held = pending.get(event.turn)
        if (held) {
          hold(held, event.text)
          return
        }
        if (transport.bufferedAmount() > coalesceAbove) {
          const held: HeldChunk = {
            event: { ...event, text: '' },
            bytes: Buffer.alloc(0),
            length: 0,
            carry: '',
          }
          pending.set(event.turn, held)
          waitForDrain()
          hold(held, event.text)
          return
        }
      } else {
        flushTurn(event.turn)
      }
      write(JSON.stringify(event))
    },
    sendPayload(payload) {
      if (overflowed) return
      flushAll()
      write(JSON.stringify(payload))
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
    transport: {
      bufferedAmount: () => raw.bufferedAmount,
      send: (text) => socket.send(text),
      onceDrained(listener) {
        if (raw._socket) raw._socket.once('drain', listener)
        else setImmediate(listener)
      },
    },
    onOverflow(bufferedBytes) {
      const reason = `the client is not reading: more than ${options.maxBufferedBytes} bytes waiting`
      options.logger.warn({ bufferedBytes }, `closing a websocket: ${reason}`)
      options.onOverflow()
      socket.close(1008, reason.slice(0, 123))
      setTimeout(() => raw.terminate?.(), 1000).unref()
    },
  })
}
