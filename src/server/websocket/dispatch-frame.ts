/**
 * The WebSocket's frame dispatcher: one frame through the pipeline every kind shares, then to its
 * kind's handler (frame-handlers.ts). In order: the connection's frame rate, the parse
 * (parse-client-frame.ts), the follow of the session it names, the kind's budget, its admission by
 * its door (enter-session.ts), its handler. A refusal at any step is told to the client, which
 * stays connected; nothing a frame carries can throw or reject past here (it would end the process).
 */
import { enterSession } from './enter-session.js'
import type { FrameHandler, FrameType, HandleFrameOptions } from './frame-handler.js'
import { type FrameHandlers, frameHandlers as registeredHandlers } from './frame-handlers.js'
import { parseClientFrame } from './parse-client-frame.js'
import { sendFrameFailure } from './send-frame-failure.js'
import type { WebSocketConnection } from './websocket-connection.js'

export interface DispatchFrameOptions {
  connection: WebSocketConnection
  /** The frame's data as the socket received it. */
  data: unknown
  /** @default the registered kinds (frame-handlers.ts) */
  handlers?: Partial<FrameHandlers>
}

const noSlot = { release: () => {} }

function sendBadRequest(connection: WebSocketConnection, message: string, session?: string): void {
  connection.send({
    type: 'error',
    code: 'bad_request',
    ...(session !== undefined ? { session } : {}),
    message,
  })
}

function reportFrameFailure(connection: WebSocketConnection, error: unknown): void {
  // A CharpipeError (a session id the engine refuses) is the client's to read, as in every handler.
  sendFrameFailure(connection, {
    error,
    logged: 'a websocket frame failed',
    told: 'the frame failed; see the server log',
  })
}

/** Past the rate, frames are dropped; the client hears of it at most once a second. */
function takeFrameRate(connection: WebSocketConnection): boolean {
  if (connection.frames.take()) return true
  const { drops } = connection
  drops.count++
  const time = connection.now()
  if (time - drops.noticedAt >= 1000) {
    drops.noticedAt = time
    const perSecond = connection.readLimits().frames_per_second
    sendBadRequest(
      connection,
      `too many frames: at most ${perSecond} a second (server.limits.frames_per_second); ${drops.count} dropped`,
    )
    drops.count = 0
  }
  return false
}

function runFrame(connection: WebSocketConnection, data: unknown, handlers: Partial<FrameHandlers>): void {
  if (!takeFrameRate(connection)) return
  const parsed = parseClientFrame({ data, maxFrameBytes: connection.readMaxFrameBytes() })
  if (!parsed.ok) {
    sendBadRequest(connection, parsed.message)
    return
  }
  const { frame } = parsed
  const named = frame.session ?? 'default'
  // One registration typed for every kind: the table types each entry against its own frame.
  const handler = handlers[frame.type] as FrameHandler<FrameType> | undefined
  if (!handler) {
    sendBadRequest(connection, `type: no handler for ${frame.type} frames`, named)
    return
  }
  const door = handler.selectDoor?.(frame) ?? handler.doors[0]
  if (!handler.doors.includes(door) || !door.startsWith('ws_')) {
    sendBadRequest(connection, `type: ${frame.type} frames have no WebSocket door`, named)
    return
  }
  // A session this connection speaks to is one it follows (turns the server starts there).
  const tooMany = connection.audience.follow(named)
  if (tooMany !== undefined && handler.needsFollow) {
    connection.send({ type: 'error', code: 'rate_limited', session: named, message: tooMany })
    return
  }
  const slot = handler.budget?.(connection, frame) ?? { ok: true as const, ...noSlot }
  if (!slot.ok) {
    sendBadRequest(connection, slot.message, named)
    return
  }
  const messages = handler.readMessages?.(frame)
  const entered = enterSession(connection, { door, named, ...(messages ? { messages } : {}) })
  if (entered === undefined) {
    slot.release()
    return
  }
  const options: HandleFrameOptions<FrameType> = { connection, frame, named, entered, slot }
  const handled = handler.handle(options)
  if (handled) handled.catch((error: unknown) => reportFrameFailure(connection, error))
}

/** Runs one frame; resolves at once (a turn it starts runs on). */
export function dispatchFrame(options: DispatchFrameOptions): void {
  const { connection } = options
  try {
    runFrame(connection, options.data, options.handlers ?? registeredHandlers)
  } catch (error) {
    reportFrameFailure(connection, error)
  }
}
