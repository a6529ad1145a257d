/**
 * `GET /ws`: JSON text frames in (`user_input`, `observe`, `interrupt`, `open`, `audience`,
 * `activity`), turn events out. Several sessions may share one socket; a frame that is not valid gets an `error` frame naming the problem and the
 * connection stays open. Turns still running when the socket closes are interrupted.
 */
import type { Writable } from 'node:stream'
import type { WSContext, WSEvents } from 'hono/ws'
import {
  type Admission,
  audienceSourceOf,
  type Caller,
  createAdmission,
  type Door,
  followsConnectorSession,
} from '../../admission/index.js'
import type { Charpipe } from '../../engine/types.js'
import { CharpipeError } from '../../shared/errors.js'
import type { CharpipeEvent } from '../../shared/events.js'
import { describeForbiddenKey, findForbiddenKey } from '../../shared/find-forbidden-key.js'
import type { Logger } from '../../shared/logger.js'
import { convertWireInput } from '../convert-wire-input.js'
import type { ReaderLedger } from '../create-reader-ledger.js'
import type { ServerMetrics } from '../create-server-metrics.js'
import { renameEventSession, type SessionOwners } from '../create-session-owners.js'
import { createFrameRateLimiter, createTurnLimiter, type TurnLimits } from '../create-turn-limiter.js'
import { isJsonNestedTooDeep, maxJsonDepth } from '../is-json-nested-too-deep.js'
import { type ClientFrame, clientFrameSchema, clientFrameTypes, formatZodIssues } from '../request-schemas.js'
import { relayTurn } from '../stream-turn.js'
import { createWebSocketAudience, type EnteredSession, type EnterOptions } from '../websocket-audience.js'
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

export interface ConnectionLimits extends TurnLimits {
  frames_per_second: number
  /** @default 32 */
  live_sessions?: number
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
 * One model chunk usually yields several events (`llm_chunk`, `llm_sentence`, …) in the same tick;
 * corking the TCP socket until the tick ends sends their frames in one write instead of one each,
 * and a write (a syscall) is the largest per-frame cost of a busy server. `_socket` is the `ws`
 * socket's transport, public in all but name since ws 1; without it frames go out one by one.
 */
function holdWritesUntilTick(socket: WSContext): void {
  const transport = (socket.raw as { _socket?: Writable } | undefined)?._socket
  if (!transport || transport.writableCorked > 0) return
  transport.cork()
  process.nextTick(() => transport.uncork())
}

/** Sends what `holdWritesUntilTick` held so far, without waiting for the tick to end. */
function releaseWrites(socket: WSContext): void {
  const transport = (socket.raw as { _socket?: Writable } | undefined)?._socket
  if (transport && transport.writableCorked > 0) transport.uncork()
}

export function createWebSocketEvents(options: CreateWebSocketEventsOptions): WSEvents {
  const { charpipe, metrics, logger } = options
  // One signal for every turn of this socket: they all end when it closes (a controller per turn
  // would cost an AbortSignal more per turn for nothing).
  const socketClosed = new AbortController()
  let untrack: (() => void) | undefined
  let backpressure: WebSocketBackpressure | undefined

  const send = (socket: WSContext, payload: unknown) => {
    if (socket.readyState !== OPEN) return
    holdWritesUntilTick(socket)
    if (backpressure) backpressure.sendPayload(payload)
    else socket.send(JSON.stringify(payload))
  }
  const sendEvent = (socket: WSContext, event: CharpipeEvent) => {
    if (socket.readyState !== OPEN) return
    holdWritesUntilTick(socket)
    if (backpressure) backpressure.sendEvent(event)
    else socket.send(JSON.stringify(event))
    // A turn's last event goes out now: what the engine does after it in the same tick (writing the
    // turn into long-term memory, milliseconds of CPU) must not hold it, nor an interrupt's answer.
    if (event.type === 'llm_done') releaseWrites(socket)
  }
  const sendBadRequest = (socket: WSContext, message: string) =>
    send(socket, { type: 'error', code: 'bad_request', message })
  const readLimits = options.readLimits ?? (() => defaultLimits)
  const frames = createFrameRateLimiter(() => readLimits().frames_per_second)
  const turns = createTurnLimiter({ readLimits })

  const admission = options.admission ?? createAdmission()
  // The server's turns for this connection (idle turns it follows, turns answering its audience
  // frames) count against its turns when they start.
  const caller: Caller = {
    ...(options.caller ?? { kind: options.admin ? 'admin' : 'client' }),
    budget: {
      take: () => {
        const slot = turns.tryStart('connection')
        if (!slot.ok) return slot
        slot.release()
        return { ok: true }
      },
    },
  }
  // Every frame passes the admission: the engine's session (a followed connector's session as it
  // is named), or undefined after telling the client why not.
  const enter = (
    socket: WSContext | undefined,
    door: Door,
    named: string,
    enterOptions: EnterOptions = {},
  ): EnteredSession | undefined => {
    const tell = (payload: unknown) => {
      if (socket && !enterOptions.quiet) send(socket, payload)
    }
    let session: string | undefined = named
    if (!followsConnectorSession(caller, door, named) && options.sessionOwners) {
      const resolved = options.sessionOwners.resolve(named, options.clientKey, options.admin)
      if (!resolved.ok) {
        tell({ type: 'error', code: 'bad_request', session: named, message: resolved.message })
        return undefined
      }
      session = resolved.session
    }
    const admitted = admission.admit({
      door,
      caller,
      session,
      named,
      ...(enterOptions.messages ? { messages: enterOptions.messages } : {}),
    })
    if (!admitted.ok) {
      tell({ type: 'error', code: admitted.code, session: named, message: admitted.reason })
      return undefined
    }
    return { session, ...(admitted.messages ? { messages: admitted.messages } : {}) }
  }
  const enterSession = (socket: WSContext, door: Door, named: string) => enter(socket, door, named)?.session

  // A CharpipeError is the client's to read; anything else goes to the log and is only named.
  const sendFailure = (socket: WSContext, session: string, error: unknown, logged: string, told: string) => {
    const known = CharpipeError.isInstance(error)
    if (!known) logger.error({ err: error }, logged)
    send(socket, {
      type: 'error',
      code: known ? error.code : 'internal',
      session,
      message: known ? error.message : told,
    })
  }

  let openSocket: WSContext | undefined
  const audience = createWebSocketAudience({
    charpipe,
    send: (payload) => {
      if (openSocket) send(openSocket, payload)
    },
    enter: (door, named, enterOptions) => enter(openSocket, door, named, enterOptions),
    readLiveSessions: () => readLimits().live_sessions ?? 32,
    admitIdle: () => caller.budget?.take().ok === true,
    admitTurn: () => caller.budget?.take() ?? { ok: true },
    source: audienceSourceOf(caller, options.clientKey, `connection:${++connections}`),
    fail: (session, error) => {
      if (openSocket)
        sendFailure(
          openSocket,
          session,
          error,
          'an audience frame failed',
          'the frame failed; see the server log',
        )
    },
  })

  // Sessions with a turn this connection started and that is still running (count per session).
  const ownTurns = new Map<string, number>()
  let droppedFrames = 0
  let lastDropNotice = 0

  /**
   * Every `user_input` frame. An early transcript (`preflight: true`) only prepares its turn: it is
   * not a turn in the metrics (the final input that takes it is) and holds no turn slot, but it may
   * start a model request, so early transcripts have their own `turns_per_minute` per connection;
   * nothing is sent back for it unless it is refused.
   */
  const takeInput = async (socket: WSContext, frame: Extract<ClientFrame, { type: 'user_input' }>) => {
    const early = frame.preflight === true
    const named = frame.session ?? 'default'
    const slot = turns.tryStart(early ? 'preflight' : 'connection')
    if (!slot.ok) {
      const message = early ? `preflight: ${slot.message}` : slot.message
      send(socket, { type: 'error', code: 'bad_request', session: named, message })
      return
    }
    if (early) slot.release()
    const session = enterSession(socket, early ? 'ws_preflight' : 'ws_user_input', named)
    if (session === undefined) {
      slot.release()
      return
    }
    if (!early) ownTurns.set(session, (ownTurns.get(session) ?? 0) + 1)
    try {
      const input = convertWireInput({
        session,
        ...(frame.character ? { character: frame.character } : {}),
        text: frame.text,
        emotion: frame.emotion,
        images: frame.images,
        speaker: frame.speaker,
        reply_images: frame.reply_images,
        ...(early ? { preflight: true } : frame.id ? { id: frame.id } : {}),
      })
      if (early) {
        await charpipe.run(input, {
          onEvent: (event) => {
            if (event.type === 'llm_error')
              send(socket, { type: 'error', code: event.code, session: named, message: event.message })
          },
        })
        return
      }
      await relayTurn({
        charpipe,
        input,
        signal: socketClosed.signal,
        metrics,
        endpoint: 'ws',
        onEvent: (event) => sendEvent(socket, renameEventSession(event, named)),
        // After llm_done: the interrupted turn's write failed; the client may resend its input.
        onTurnNotStored: (event) => send(socket, renameEventSession(event, named)),
      })
    } catch (error) {
      logger.error({ err: error }, early ? 'preparing a preflight failed' : 'websocket turn failed')
      const message = early
        ? 'the preflight failed; see the server log'
        : 'the turn failed; see the server log'
      send(socket, { type: 'error', code: 'internal', ...(early ? { session: named } : {}), message })
    } finally {
      if (!early) {
        slot.release()
        const left = (ownTurns.get(session) ?? 1) - 1
        if (left > 0) ownTurns.set(session, left)
        else ownTurns.delete(session)
      }
    }
  }

  // Nothing is sent back for an observed line unless it is refused: a flood would echo a flood.
  const observeLine = (socket: WSContext, frame: Extract<ClientFrame, { type: 'observe' }>) => {
    const named = frame.session ?? 'default'
    const session = enterSession(socket, 'ws_observe', named)
    if (session === undefined) return
    try {
      charpipe.sessions.observe({ session, speaker: frame.speaker, text: frame.text, images: frame.images })
    } catch (error) {
      sendFailure(
        socket,
        named,
        error,
        'observing a line failed',
        'observing the line failed; see the server log',
      )
    }
  }

  // Always answered, so a client knows when to show the session: with the greeting when one was stored.
  const openSession = async (socket: WSContext, frame: Extract<ClientFrame, { type: 'open' }>) => {
    const named = frame.session ?? 'default'
    const session = enterSession(socket, 'ws_open', named)
    if (session === undefined) return
    try {
      const { greeting } = await charpipe.sessions.open({
        session,
        ...(frame.character ? { character: frame.character } : {}),
      })
      send(socket, {
        type: 'opened',
        session: named,
        ...(frame.character ? { character: frame.character } : {}),
        greeting: greeting
          ? { text: greeting.content, emotion: greeting.emotion, turn: greeting.turn }
          : null,
      })
    } catch (error) {
      sendFailure(
        socket,
        named,
        error,
        'opening a session failed',
        'opening the session failed; see the server log',
      )
    }
  }

  // Past the rate, frames are dropped; the client hears of it at most once a second.
  const admitFrame = (socket: WSContext): boolean => {
    if (frames.take()) return true
    droppedFrames++
    const time = Date.now()
    if (time - lastDropNotice >= 1000) {
      lastDropNotice = time
      sendBadRequest(
        socket,
        `too many frames: at most ${readLimits().frames_per_second} a second (server.limits.frames_per_second); ${droppedFrames} dropped`,
      )
      droppedFrames = 0
    }
    return false
  }

  const parseFrame = (socket: WSContext, data: unknown): ClientFrame | undefined => {
    if (typeof data !== 'string') {
      sendBadRequest(socket, 'binary frames are not accepted: send JSON text frames')
      return undefined
    }
    const limit = options.readMaxFrameBytes()
    const size = Buffer.byteLength(data)
    if (size > limit) {
      sendBadRequest(socket, `the frame is ${size} bytes, more than server.max_body_bytes (${limit})`)
      return undefined
    }
    if (isJsonNestedTooDeep(data)) {
      sendBadRequest(socket, `the frame nests deeper than ${maxJsonDepth} levels`)
      return undefined
    }
    let value: unknown
    try {
      value = JSON.parse(data)
    } catch (error) {
      sendBadRequest(socket, `the frame is not valid JSON: ${(error as Error).message}`)
      return undefined
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      sendBadRequest(socket, `a frame must be a JSON object with a "type" (${clientFrameTypes.join(', ')})`)
      return undefined
    }
    const forbidden = findForbiddenKey(value)
    if (forbidden !== undefined) {
      sendBadRequest(socket, describeForbiddenKey(forbidden))
      return undefined
    }
    const parsed = clientFrameSchema.safeParse(value)
    if (!parsed.success) {
      const type = (value as { type?: unknown }).type
      const known = (clientFrameTypes as readonly unknown[]).includes(type)
      sendBadRequest(
        socket,
        known
          ? `${type} frame: ${formatZodIssues(parsed.error)}`
          : `type: unknown frame type ${JSON.stringify(type ?? null)}; expected ${clientFrameTypes.join(', ')}`,
      )
      return undefined
    }
    return parsed.data
  }

  const handleFrame = (data: unknown, socket: WSContext) => {
    if (!admitFrame(socket)) return
    const frame = parseFrame(socket, data)
    if (!frame) return
    // A session this connection speaks to is one it follows (turns the server starts there).
    const tooMany = audience.follow(frame.session ?? 'default')
    if (tooMany !== undefined && frame.type === 'open') {
      send(socket, {
        type: 'error',
        code: 'rate_limited',
        session: frame.session ?? 'default',
        message: tooMany,
      })
      return
    }
    if (frame.type === 'audience' || frame.type === 'activity') {
      audience.handle(frame)
      return
    }
    if (frame.type === 'user_input') {
      void takeInput(socket, frame)
      return
    }
    if (frame.type === 'observe') {
      observeLine(socket, frame)
      return
    }
    if (frame.type === 'open') {
      void openSession(socket, frame)
      return
    }
    const session = enterSession(socket, 'ws_interrupt', frame.session ?? 'default')
    if (session === undefined) return
    // What was heard becomes the character's stored words: only the connection that receives the
    // turn (it plays the speech) or an admin may say it. Anyone may still stop the turn.
    const heard = ownTurns.has(session) || options.admin ? frame.heard : undefined
    charpipe
      .interrupt(session, {
        ...(heard !== undefined ? { heard } : {}),
        ...(frame.clear_queue ? { clearQueue: true } : {}),
        ...(frame.character ? { character: frame.character } : {}),
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'interrupt failed')
        send(socket, {
          type: 'error',
          code: 'internal',
          message: 'the interrupt failed; see the server log',
        })
      })
  }

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
      // Nothing a frame carries may throw out of the socket's listener: that would end the process.
      try {
        handleFrame(event.data, socket)
      } catch (error) {
        logger.error({ err: error }, 'a websocket frame failed')
        send(socket, { type: 'error', code: 'internal', message: 'the frame failed; see the server log' })
      }
    },
    onClose() {
      audience.close()
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
