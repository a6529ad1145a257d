/**
 * What a connector needs of the product: hand audience messages to a session's selector, follow the
 * turns the server starts in that session by itself, and run a plain turn for a 1:1 chat. The
 * `Charpipe` object provides all three; tests may pass a fake.
 */
import type { SessionEvent } from '../audience/create-audience-hub.js'
import type { AudienceClock, AudienceMessage } from '../audience/types.js'
import type { Charpipe, CharpipeAudience, CharpipeSessions } from '../engine/types.js'

export type { AudienceRole } from '../audience/types.js'

/** One chat message from the audience (PROTOCOL.md "Additions (third wave)", `audience` frame). */
export type AudienceMessageInput = AudienceMessage

/** An event the connector follows: a turn's events (the `llm_done` of an audience turn names the ids it answers). */
export type FollowedEvent = SessionEvent

export interface ConnectorHost {
  readonly audience: Pick<CharpipeAudience, 'send'>
  readonly sessions: Pick<CharpipeSessions, 'follow'>
  run: Charpipe['run']
}

/** Where a connector's pacing reads time from: the system clock, or a test's manual one. */
export type ConnectorClock = AudienceClock

/** The ids of the audience messages a finished turn answered (`llm_done` of an audience turn). */
export function readReplyingTo(event: FollowedEvent): string[] {
  return event.type === 'llm_done' ? (event.replying_to ?? []) : []
}

/** A connector's state for `GET /api/connectors` and the page. */
export interface ConnectorStatus {
  name: string
  kind: 'onebot' | 'twitch' | 'bilibili'
  /** The id of the character that speaks there; empty: the default character. */
  character: string
  state: 'connecting' | 'ready' | 'failed'
  /** Why it is not ready (last failure), secrets masked. */
  error?: string
  /** What the streamer should know while it runs: the room is offline, replies are refused (a ban). */
  notice?: string
  sessions: string[]
  messages_in: number
  messages_out: number
  /** Messages the host refused (a full queue, a turn limit): dropped, the link kept. */
  messages_refused?: number
  /**
   * What it received that could not be read (an event with fields of the wrong kind, a frame cut
   * short or inflating past its bounds), dropped and counted by reason; the link is kept.
   */
  malformed?: Record<string, number>
  /** Platform events counted (Bilibili: entered, followed, silver gifts and danmaku below the user level, none of them a turn; thank-you lines sent, one turn a window). */
  counted?: Record<string, number>
}

export interface Connector {
  status(): ConnectorStatus
  close(): Promise<void>
}
