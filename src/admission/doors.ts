/**
 * Every way into a session: each starts a turn or adds a message, and each passes `admit`
 * (create-admission.ts). The list is the admission's own, so a door added here is a door the
 * battery (test/doors/) must cover, and a door not here does not exist.
 */

export const doors = [
  /** WebSocket `user_input` (a turn of the connection's own). */
  'ws_user_input',
  /** WebSocket `user_input` with `preflight: true` (an early transcript may start a model request). */
  'ws_preflight',
  /** WebSocket `audience` (chat messages offered to the session's selector). */
  'ws_audience',
  /** WebSocket `open` (a greeting; the session becomes live for idle turns). */
  'ws_open',
  /** WebSocket `activity` (voice activity: the selector waits while someone speaks). */
  'ws_activity',
  /** WebSocket `interrupt`. */
  'ws_interrupt',
  /** WebSocket `observe` (a line said in the session). */
  'ws_observe',
  /** WebSocket `say` (the character says given words: a turn for the session's followers). */
  'ws_say',
  /** WebSocket `event` (something happened in the session; answered by a turn when asked). */
  'ws_event',
  /** A WebSocket following a session: the server may start idle and audience turns there for it. */
  'ws_follow',
  /** `POST /api/chat`. */
  'http_chat',
  /** `POST /api/sessions/:id/audience`. */
  'http_audience',
  /** `POST /api/sessions/:id/open`. */
  'http_open',
  /** `POST /api/sessions/:id/observe`. */
  'http_observe',
  /** `POST /api/sessions/:id/say`. */
  'http_say',
  /** `POST /api/sessions/:id/events`. */
  'http_event',
  /** `GET /api/sessions/:id/messages` (a session's history: what its next prompt is built from). */
  'http_messages',
  /** `/v1/chat/completions`, `/v1/responses` and any other OpenAI-compatible turn. */
  'v1',
  /** A connector's chat message for a session's audience (OneBot groups, Twitch, Bilibili, …). */
  'connector_audience',
  /** A connector's 1:1 turn (OneBot private chats). */
  'connector_turn',
] as const

export type Door = (typeof doors)[number]

/** Doors through which a client that follows a connector (`server.clients[].follow`) may reach its sessions. */
export const followDoors: ReadonlySet<Door> = new Set<Door>([
  'ws_open',
  'ws_activity',
  'ws_interrupt',
  'ws_follow',
  'ws_say',
  'ws_event',
  'http_say',
  'http_event',
])

/**
 * Doors that speak for the session's owner, not for a person in it (`say`, `event`): only the
 * admin token, or a named client that follows the session (`server.clients[].follow` naming its
 * connector, or `*` for every session), may use them.
 */
export const ownerDoors: ReadonlySet<Door> = new Set<Door>(['ws_say', 'ws_event', 'http_say', 'http_event'])

/** Doors that carry audience messages (their roles, gifts and ids are checked). */
export const audienceDoors: ReadonlySet<Door> = new Set<Door>([
  'ws_audience',
  'http_audience',
  'connector_audience',
])

/**
 * Doors charged one turn of the caller's budget at the door: a connector's 1:1 turn starts at once.
 * Audience doors are not: their messages flow into the selector, and each turn the server later
 * starts to answer them is charged to their origin then (`AudienceInput.admitTurn`).
 */
export const chargedDoors: ReadonlySet<Door> = new Set<Door>(['connector_turn'])
