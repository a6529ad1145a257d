/**
 * The one list of hostile inputs every door of the battery runs (door-battery.test.ts). Each input
 * says what a door is handed; a door's driver turns it into its own wire form (a WebSocket frame,
 * an HTTP body, a Twitch chat line, a OneBot event).
 */
import { longStoryAsk } from './slow-reader.js'

export const hostileInputs = [
  /** A text over every limit (100,000 characters is the audience schema's). */
  'oversized_text',
  /** A character no config has. */
  'unknown_character',
  /** A character that was configured and has been deleted. */
  'deleted_character',
  /** `constructor` as a role and `__proto__` as a key. */
  'prototype_keys',
  /** Not JSON, or not the shape the door takes. */
  'malformed_frame',
  /** Ten at once, past a limit of two per minute. */
  'flood',
  /**
   * A message id a connector's member uses, sent first into the connector's session by a chat
   * client (the connector's driver sends the chat client's line, then the member's).
   */
  'reused_id',
  /** A connector's session, from a chat client. */
  'foreign_session',
  /** `owner` with a gift, from a chat client. */
  'privileged_role',
  /**
   * A reader that never reads what it is sent: it stops at the TCP level and asks for a reply far
   * past `server.ws_max_buffered_bytes` (slow-reader.ts).
   */
  'slow_reader',
] as const

export type HostileInput = (typeof hostileInputs)[number]

/** What a door's driver sends for an input (text carries the cell's marker, so its model requests are found). */
export interface HostilePayload {
  session: string
  text: string
  character?: string
  role?: string
  gift?: { name: string; value: number }
  id?: string
  /** JSON keys put in as they are (`__proto__` survives no object literal). */
  rawKeys?: string
  /** Sent instead of a well-formed payload. */
  raw?: string
  times: number
}

/** The OneBot group session every chat client's `foreign_session` and `reused_id` aim at. */
export const connectorSession = 'onebot:qq:group:123'

export function payloadFor(input: HostileInput, marker: string): HostilePayload {
  const base: HostilePayload = { session: `s-${marker}`, text: `${marker} hello`, times: 1 }
  switch (input) {
    case 'oversized_text':
      return { ...base, text: `${marker} ${'x'.repeat(120_000)}` }
    case 'unknown_character':
      return { ...base, character: 'nobody' }
    case 'deleted_character':
      return { ...base, character: 'bob' }
    case 'prototype_keys':
      return { ...base, role: 'constructor', rawKeys: '"__proto__":{"polluted":true},' }
    case 'malformed_frame':
      return { ...base, raw: `{"type": ${marker}` }
    case 'flood':
      return { ...base, times: 10 }
    case 'reused_id':
      return { ...base, session: connectorSession, id: `reused-${marker}` }
    case 'foreign_session':
      return { ...base, session: connectorSession }
    case 'privileged_role':
      return { ...base, role: 'owner', gift: { name: 'rocket', value: 500 } }
    case 'slow_reader':
      return { ...base, text: `${marker} ${longStoryAsk}` }
  }
}

/** Puts `rawKeys` first into a JSON object's text. */
export function withRawKeys(json: string, rawKeys: string | undefined): string {
  return rawKeys ? `{${rawKeys}${json.slice(1)}` : json
}
