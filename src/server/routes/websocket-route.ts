/**
 * `GET /ws`: JSON text frames in (`user_input`, `observe`, `interrupt`, `open`, `audience`,
 * `activity`), turn events out. Several sessions may share one socket; a frame that is not valid
 * gets an `error` frame naming the problem and the connection stays open. Turns still running when
 * the socket closes are interrupted. The route is the socket's side: how frames are sent and the
 * socket's lifetime. Each frame goes through the dispatcher (websocket/dispatch-frame.ts) to the
 * handler its kind is registered with (websocket/frame-handlers.ts), over the connection's state
 * (websocket/create-websocket-connection.ts).
 */
import type { Writable } from 'node:stream'
import type { WSContext, WSEvents } from 'hono/ws'
import type { Admission, Caller } from '../../admission/index.js'
import type { Charpipe } from '../../engine/types.js'
import type { CharpipeEvent } from '../../shared/events.js'
import type { Logger } from '../../shared/logger.js'
import type { ReaderLedger } from '../create-reader-ledger.js'
import type { ServerMetrics } from '../create-server-metrics.js'
import type { SessionOwners } from '../create-session-owners.js'
import { createWriteHold } from '../create-write-hold.js'
import { createWebSocketConnection } from '../websocket/create-websocket-connection.js'
import { dispatchFrame } from '../websocket/dispatch-frame.js'
import type { ConnectionLimits } from '../websocket/websocket-connection.js'
import { attachWebSocketBackpressure, type WebSocketBackpressure } from '../websocket-backpressure.js'

export interface CreateWebSocketEventsOptions {
  charpipe: Charpipe
  metrics: ServerMetrics
  logger: Logger
  /** Largest accepted frame, read per frame so a config change applies at once. */
  readMaxFrameBytes: () => number
  /** Called for every open socket so the server can close them on shutdown. */
  track: (close: () => void) => () => void
  /** Most bytes waiting for a client before its turns are interrupted and its socket closed. */
  readMaxBufferedBytes?: () => number
  /** The server's slow readers together (`server.limits.buffered_bytes_total`). @default this socket alone */
  ledger?: ReaderLedger
  /** Frame and turn limits of one connection. @default the schema's defaults */
  readLimits?: () => ConnectionLimits
  /**
   * The connection was opened with the admin token: it may say what was heard of a turn another
   * connection started. Otherwise `heard` counts only for the connection's own turns.
   */
  admin?: boolean
  /** The client key the connection presented: its sessions live in the key's namespace. */
  clientKey?: string
  sessionOwners?: SessionOwners
  /** The server's admission. @default one of the connection's own */
  admission?: Admission
  /** Who the connection is. @default the admin when `admin`, else a chat client */
  caller?: Caller
}

const defaultLimits: ConnectionLimits = {
  frames_per_second: 50,
  turns_per_minute: 120,
  concurrent_turns: 8,
  live_sessions: 32,
}

const OPEN = 1
/** Numbers the connections, each its own source of audience message ids (without a key or a name). */
let connections = 0

/**
 * One model chunk usually yields several events (`llm_chunk`, `llm_sentence`, …), and a busy loop
 * reads several chunks of a session between two of its check phases: each socket's frames are held
 * (corked) until then and leave in one write instead of one each (create-write-hold.ts). `_socket`
 * is the `ws` socket's transport, public in all but name since ws 1; without it frames go out one
 * by one. One hold for all the server's sockets: one `setImmediate` a turn of the loop, not one each.
 */
const writeHold = createWriteHold()
const transportOf = (socket: WSContext) => (socket.raw as { _socket?: Writable } | undefined)?._socket

export function createWebSocketEvents(options: CreateWebSocketEventsOptions): WSEvents {
  const { metrics, logger } = options
  // One signal for every turn of this socket: they all end when it closes (a controller per turn
  // would cost an AbortSignal more per turn for nothing).
  const socketClosed = new AbortController()
  let untrack: (() => void) | undefined
  let backpressure: WebSocketBackpressure | undefined

  const send = (socket: WSContext, payload: unknown) => {
    if (socket.readyState !== OPEN) return
    const transport = transportOf(socket)
    if (transport) writeHold.hold(transport)
    if (backpressure) backpressure.sendPayload(payload)
    else socket.send(JSON.stringify(payload))
  }
  const sendEvent = (socket: WSContext, event: CharpipeEvent) => {
    if (socket.readyState !== OPEN) return
    const transport = transportOf(socket)
    if (transport) writeHold.hold(transport)
    if (backpressure) backpressure.sendEvent(event)
    else socket.send(JSON.stringify(event))
    // A turn's last event goes out now: what the engine does after it in the same tick (writing the
    // turn into long-term memory, milliseconds of CPU) must not hold it, nor an interrupt's answer.
    if (event.type === 'llm_done' && transport) writeHold.release(transport)
  }

  let openSocket: WSContext | undefined
  const connection = createWebSocketConnection({
    ...options,
    readLimits: options.readLimits ?? (() => defaultLimits),
    closed: socketClosed.signal,
    anonymousSource: `connection:${++connections}`,
    send: (payload) => {
      if (openSocket) send(openSocket, payload)
    },
    sendEvent: (event) => {
      if (openSocket) sendEvent(openSocket, event)
    },
  })

  return {
    onOpen(_event, socket) {
      openSocket = socket
      metrics.connections.inc()
      untrack = options.track(() => socket.close(1001, 'server shutting down'))
      const maxBufferedBytes = options.readMaxBufferedBytes?.()
      if (maxBufferedBytes) {
        // Past the bound the socket's turns end now (stored as interrupted), not when it closes.
        const onOverflow = () => socketClosed.abort()
        backpressure = attachWebSocketBackpressure(socket, {
          maxBufferedBytes,
          onOverflow,
          logger,
          ...(options.ledger ? { ledger: options.ledger } : {}),
        })
      }
    },
    onMessage(event, socket) {
      openSocket = socket
      // Nothing a frame carries may throw out of the socket's listener (that would end the process):
      // the dispatcher is guarded.
      dispatchFrame({ connection, data: event.data })
    },
    onClose() {
      connection.audience.close()
      metrics.connections.dec()
      untrack?.()
      // The text held for a client that is gone is let go now, not when its turns end.
      backpressure?.dispose()
      socketClosed.abort()
    },
    onError(event) {
      const error = (event as Event & { error?: unknown }).error
      if ((error as { code?: string } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        // ws closes such a socket itself with 1009 (message too big); say why in the log.
        logger.warn(
          { limit: options.readMaxFrameBytes() },
          'websocket closed with 1009: a frame was far larger than server.max_body_bytes',
        )
        return
      }
      logger.warn({ err: error }, 'websocket error')
    },
  }
}
