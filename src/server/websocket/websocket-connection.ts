/**
 * The state of one WebSocket connection, shared by its frame handlers (frame-handlers.ts): who it
 * is, its limits, its sessions and how to reach its client. create-websocket-connection.ts builds
 * it for each socket the route accepts; each handler is a function of it and of one frame.
 */
import type { Admission, Caller } from '../../admission/index.js'
import type { Charpipe } from '../../engine/types.js'
import type { CharpipeEvent } from '../../shared/events.js'
import type { Logger } from '../../shared/logger.js'
import type { ServerMetrics } from '../create-server-metrics.js'
import type { SessionOwners } from '../create-session-owners.js'
import type { FrameRateLimiter, TurnLimiter, TurnLimits } from '../create-turn-limiter.js'
import type { WebSocketAudience } from '../websocket-audience.js'

export interface ConnectionLimits extends TurnLimits {
  frames_per_second: number
  /** @default 32 */
  live_sessions?: number
}

export interface WebSocketConnection {
  charpipe: Charpipe
  metrics: ServerMetrics
  logger: Logger
  /** The connection was opened with the admin token (it may say what was heard of any turn). */
  admin: boolean
  /** The client key the connection presented: its sessions live in the key's namespace. */
  clientKey: string | undefined
  sessionOwners: SessionOwners | undefined
  admission: Admission
  /** Who the connection is, with its turns as the budget of the turns the server starts for it. */
  caller: Caller
  /** Largest accepted frame, read per frame so a config change applies at once. */
  readMaxFrameBytes(): number
  readLimits(): ConnectionLimits
  frames: FrameRateLimiter
  turns: TurnLimiter
  /** Aborted when the socket closes (or its client stops reading): every turn of the socket ends. */
  closed: AbortSignal
  /** Sessions with a turn this connection started and that is still running (count per session). */
  ownTurns: Map<string, number>
  /** Frames dropped past the rate since the client was last told, and when it was. */
  drops: { count: number; noticedAt: number }
  /** @default Date.now */
  now(): number
  /** The sessions the connection follows, and its `audience` and `activity` frames. */
  audience: WebSocketAudience
  /** Sends a frame that is not a turn event (an error, `opened`); dropped once the socket closed. */
  send(payload: unknown): void
  /** Sends a turn event (a lagging client's chunks are merged); dropped once the socket closed. */
  sendEvent(event: CharpipeEvent): void
}
