/**
 * Builds the state of one WebSocket connection (websocket-connection.ts) from the route's options
 * and its way of sending frames: who it is (the server's turns for it, idle turns it follows and
 * turns answering its audience frames, count against its turns when they start), its limits, its
 * audience side (websocket-audience.ts).
 */
import { type Admission, audienceSourceOf, type Caller, createAdmission } from '../../admission/index.js'
import type { Charpipe } from '../../engine/types.js'
import type { Logger } from '../../shared/logger.js'
import type { ServerMetrics } from '../create-server-metrics.js'
import type { SessionOwners } from '../create-session-owners.js'
import { createFrameRateLimiter, createTurnLimiter } from '../create-turn-limiter.js'
import { createWebSocketAudience } from '../websocket-audience.js'
import { enterSession } from './enter-session.js'
import { sendFrameFailure } from './send-frame-failure.js'
import type { ConnectionLimits, WebSocketConnection } from './websocket-connection.js'

export interface CreateWebSocketConnectionOptions {
  charpipe: Charpipe
  metrics: ServerMetrics
  logger: Logger
  readMaxFrameBytes(): number
  readLimits(): ConnectionLimits
  admin?: boolean
  clientKey?: string
  sessionOwners?: SessionOwners
  /** @default one of the connection's own */
  admission?: Admission
  /** @default the admin when `admin`, else a chat client */
  caller?: Caller
  /** Aborted when the socket closes. */
  closed: AbortSignal
  /** Where audience messages of this connection come from, when it has neither a key nor a name. */
  anonymousSource: string
  send: WebSocketConnection['send']
  sendEvent: WebSocketConnection['sendEvent']
}

export function createWebSocketConnection(options: CreateWebSocketConnectionOptions): WebSocketConnection {
  const { charpipe, readLimits } = options
  const turns = createTurnLimiter({ readLimits })
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
  const base = {
    charpipe,
    metrics: options.metrics,
    logger: options.logger,
    admin: options.admin === true,
    clientKey: options.clientKey,
    sessionOwners: options.sessionOwners,
    admission: options.admission ?? createAdmission(),
    caller,
    readMaxFrameBytes: options.readMaxFrameBytes,
    readLimits,
    frames: createFrameRateLimiter(() => readLimits().frames_per_second),
    turns,
    closed: options.closed,
    ownTurns: new Map<string, number>(),
    // The first frame dropped is always told.
    drops: { count: 0, noticedAt: Number.NEGATIVE_INFINITY },
    now: Date.now,
    send: options.send,
    sendEvent: options.sendEvent,
  }
  const audience = createWebSocketAudience({
    charpipe,
    send: options.send,
    enter: (door, named, enterOptions) => enterSession(base, { door, named, ...enterOptions }),
    readLiveSessions: () => readLimits().live_sessions ?? 32,
    admitIdle: () => caller.budget?.take().ok === true,
    admitTurn: () => caller.budget?.take() ?? { ok: true },
    source: audienceSourceOf(caller, options.clientKey, options.anonymousSource),
    fail: (session, error) =>
      sendFrameFailure(base, {
        session,
        error,
        logged: 'an audience frame failed',
        told: 'the frame failed; see the server log',
      }),
  })
  return { ...base, audience }
}
