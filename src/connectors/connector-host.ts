/**
 * What a connector needs of the product: hand audience messages to a session's selector, follow the
 * turns the server starts in that session by itself, and run a plain turn for a 1:1 chat. The
 * `Charpipe` object provides all three; tests may pass a fake.
 */
import type { GenerateInput } from '../engine/types.js'
import type { CharpipeEvent } from '../shared/events.js'

export type AudienceRole = 'viewer' | 'member' | 'moderator' | 'owner'

/** One chat message from the audience (PROTOCOL.md "Additions (third wave)", `audience` frame). */
export interface AudienceMessageInput {
  id: string
  speaker: { id: string; name?: string; role?: AudienceRole }
  text: string
  images?: string[]
  gift?: { name: string; value: number }
  at?: string
}

/** An event the connector follows: a turn's events (the `llm_done` of an audience turn names the ids it answers). */
export type FollowedEvent = CharpipeEvent | { type: string; session: string; [field: string]: unknown }

/** The ids of the audience messages a finished turn answered (`llm_done` of an audience turn). */
export function readReplyingTo(event: FollowedEvent): string[] {
  const ids = (event as { replying_to?: unknown }).replying_to
  return Array.isArray(ids) ? ids.map(String) : []
}

export interface ConnectorHost {
  audience(input: { session: string; character?: string; messages: AudienceMessageInput[] }): unknown
  subscribe(session: string, listener: (event: FollowedEvent) => void): () => void
  run(input: GenerateInput, onEvent: (event: CharpipeEvent) => void): Promise<void>
}

/** A connector's state for `GET /api/connectors` and the page. */
export interface ConnectorStatus {
  name: string
  kind: 'onebot' | 'twitch'
  state: 'connecting' | 'ready' | 'failed'
  /** Why it is not ready (last failure), secrets masked. */
  error?: string
  sessions: string[]
  messages_in: number
  messages_out: number
}

export interface Connector {
  status(): ConnectorStatus
  close(): Promise<void>
}
