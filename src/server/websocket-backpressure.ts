/**
 * Backpressure for one WebSocket: what the server has written and the client has not read yet stays
 * bounded. Below `coalesceAboveBytes` of buffered output every event goes out as it comes. Above it
 * (the client lags: a slow network, a paused tab) the `llm_chunk` deltas of a turn are held and
 * merged into one, sent before that turn's next other event or when the socket drains, so a lagging
 * client gets fewer, larger frames and the text stays the same. Everything held for the client
 * counts in one byte budget: the socket's buffered output and the merged text waiting here. Past
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
  /** Bytes of merged text held here, waiting for the socket to drain (UTF-8, estimated by length). */
  readonly heldBytes: number
}

type ChunkEvent = Extract<CharpipeEvent, { type: 'llm_chunk' }>

export function createWebSocketBackpressure(
  options: CreateWebSocketBackpressureOptions,
): WebSocketBackpressure {
  const { transport, maxBufferedBytes } = options
  const coalesceAbove = options.coalesceAboveBytes ?? Math.min(64 * 1024, Math.floor(maxBufferedBytes / 16))
  // Held chunks by turn, in the order their turns first lagged.
  const pending = new Map<string, ChunkEvent>()
  let waitingForDrain = false
  let overflowed = false
  // Merged text held, counted at 3 bytes a UTF-16 unit (the most one takes in UTF-8) so the
  // budget is never under-counted without encoding each chunk.
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
  const hold = (chunk: ChunkEvent, text: string) => {
    chunk.text += text
    heldBytes += text.length * 3
    const total = transport.bufferedAmount() + heldBytes
    if (total > maxBufferedBytes) overflow(total)
  }
  const flushTurn = (turn: string) => {
    const held = pending.get(turn)
    if (!held) return
    pending.delete(turn)
    heldBytes -= held.text.length * 3
    write(JSON.stringify(held))
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
    sendEvent(event) {
      if (overflowed) return
      if (event.type === 'llm_chunk') {
        const held = pending.get(event.turn)
        if (held) {
          hold(held, event.text)
          return
        }
        if (transport.bufferedAmount() > coalesceAbove) {
          const chunk = { ...event, text: '' }
          pending.set(event.turn, chunk)
          waitForDrain()
          hold(chunk, event.text)
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
