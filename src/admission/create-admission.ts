/**
 * The one admission every door passes (doors.ts): who is at the door, which session it may touch,
 * which roles its audience messages may claim, and whose budget the turn counts against. It never
 * throws: a refusal is a result with a code and a reason the door passes on (an error frame, a 403
 * or 429, a connector's counted drop), so no input can end a socket listener or the process.
 *
 * - A connector's sessions (`onebot:…`, `twitch:…`, `bilibili:…`) are its own: another connector or
 *   a chat client is refused; a named client may reach them only through the follow doors and only
 *   for the connectors in its `follow`; the admin token reaches every session.
 * - `owner` / `moderator` and gifts come only from a connector or the admin token: a chat client's
 *   audience speaker is a `viewer` and its gift is dropped.
 * - The owner's doors (`say`, `event`) are the admin token's, or a named client's that follows
 *   the session (`follow` naming its connector, or `*`).
 * - A charged door (a connector's 1:1 turn) takes one turn from the caller's budget at the door;
 *   audience doors hand the caller's budget on as the messages' `admitTurn`, charged when the
 *   server starts a turn answering them (the connection, the address or the connector that caused it).
 */
import type { AudienceMessage } from '../audience/types.js'
import type { TurnBudget } from './create-minute-budget.js'
import { audienceDoors, chargedDoors, type Door, doors, followDoors, ownerDoors } from './doors.js'
import { type ConnectorKind, findSessionConnector } from './find-session-connector.js'

export type CallerKind = 'admin' | 'client' | 'named_client' | 'connector'

export interface Caller {
  kind: CallerKind
  /** The named client's or the connector's name. */
  name?: string
  /** A connector's kind. */
  connectorKind?: ConnectorKind
  /** A named client's `follow` (connector names, or `*`). */
  follow?: readonly string[]
  /** What a charged door's turn counts against; none: the door's own limits apply elsewhere. */
  budget?: TurnBudget
}

export interface AdmitRequest {
  door: Door
  caller: Caller
  /** The engine's session (after the caller's namespace was applied). */
  session: string
  /**
   * The session as the caller named it, when its namespace changed it: a connector's session id
   * is refused even where a client key would have made it a session of the client's own.
   */
  named?: string
  /** An audience door's messages, as handed in (checked in full by the engine's schema later). */
  messages?: readonly AudienceMessage[]
}

/** `bad_request`: admitted, then refused by what it was handed to (counted with `count`). */
export type AdmissionRefusalCode = 'forbidden' | 'rate_limited' | 'bad_request'

export type AdmitResult =
  | { ok: true; messages?: AudienceMessage[] }
  | { ok: false; code: AdmissionRefusalCode; reason: string }

export interface AdmissionStats {
  admitted: number
  /** Refusals by door and code, e.g. `{ ws_audience: { forbidden: 2 } }`. */
  refused: Partial<Record<Door, Partial<Record<AdmissionRefusalCode, number>>>>
}

export interface Admission {
  admit(request: AdmitRequest): AdmitResult
  /** Counts a drop decided after admission (the engine refused what the door was handed). */
  count(door: Door, code: AdmissionRefusalCode): void
  stats(): AdmissionStats
}

/** Whether `caller` may reach the connector session `named` as it is, without its own namespace. */
export function followsConnectorSession(caller: Caller, door: Door, named: string): boolean {
  if (caller.kind !== 'named_client' || !followDoors.has(door)) return false
  const connector = findSessionConnector(named)
  if (!connector) return false
  const follow = caller.follow ?? []
  return follow.includes('*') || follow.includes(connector.name)
}

function describeCaller(caller: Caller): string {
  if (caller.kind === 'named_client') return `client "${caller.name ?? ''}"`
  if (caller.kind === 'connector') return `connector "${caller.name ?? ''}"`
  return 'a chat client'
}

function checkSession(request: AdmitRequest): string | undefined {
  const { caller, session, door } = request
  const owner = findSessionConnector(session) ?? findSessionConnector(request.named ?? session)
  if (!owner || caller.kind === 'admin') return undefined
  const shown = request.named ?? session
  if (caller.kind === 'connector') {
    if (caller.name === owner.name && (caller.connectorKind ?? owner.kind) === owner.kind) return undefined
    return `session "${shown}" belongs to connector "${owner.name}", not to ${describeCaller(caller)}`
  }
  if (followsConnectorSession(caller, door, session)) return undefined
  const followable = followDoors.has(door)
    ? `; a named client may follow it with server.clients[].follow: ["${owner.name}"]`
    : ''
  return `session "${shown}" belongs to connector "${owner.name}": ${door} there needs the admin token${followable}`
}

/**
 * An owner's door (`say`, `event`): the admin token, or a named client whose `follow` covers the
 * session (its connector's name, or `*`: every session). Undefined when admitted, else why not.
 */
function checkOwner(request: AdmitRequest): string | undefined {
  const { caller, door } = request
  if (!ownerDoors.has(door) || caller.kind === 'admin') return undefined
  const shown = request.named ?? request.session
  if (caller.kind === 'named_client') {
    const follow = caller.follow ?? []
    const connector = findSessionConnector(request.session) ?? findSessionConnector(shown)
    if (follow.includes('*') || (connector && follow.includes(connector.name))) return undefined
    const needed = connector ? `"${connector.name}" or "*"` : '"*"'
    return `${door} needs the admin token or a client that follows session "${shown}": ${describeCaller(caller)} does not (server.clients[].follow needs ${needed})`
  }
  return `${door} needs the admin token or a named client that follows session "${shown}" (server.clients[].follow); ${describeCaller(caller)} may not speak for the session`
}

/** A chat client's messages as it may send them: every speaker a viewer, no gifts. */
function lowerRoles(messages: readonly AudienceMessage[]): AudienceMessage[] {
  return messages.map((message) => {
    if (message === null || typeof message !== 'object') return message
    const speaker = message.speaker
    const needsViewer =
      speaker !== null &&
      typeof speaker === 'object' &&
      speaker.role !== undefined &&
      speaker.role !== 'viewer'
    if (!needsViewer && message.gift === undefined) return message
    const { gift: _gift, ...rest } = message
    return needsViewer ? { ...rest, speaker: { ...speaker, role: 'viewer' as const } } : rest
  })
}

export function createAdmission(): Admission {
  let admitted = 0
  const refused: AdmissionStats['refused'] = {}
  const count = (door: Door, code: AdmissionRefusalCode) => {
    const counts = refused[door] ?? {}
    counts[code] = (counts[code] ?? 0) + 1
    refused[door] = counts
  }
  const refuse = (door: Door, code: AdmissionRefusalCode, reason: string): AdmitResult => {
    count(door, code)
    return { ok: false, code, reason }
  }
  return {
    admit(request) {
      const { door, caller } = request
      if (!doors.includes(door)) return refuse(door, 'forbidden', `no door "${String(door)}"`)
      const foreign = checkSession(request) ?? checkOwner(request)
      if (foreign !== undefined) return refuse(door, 'forbidden', foreign)
      let messages = request.messages ? [...request.messages] : undefined
      if (messages && audienceDoors.has(door) && caller.kind !== 'admin' && caller.kind !== 'connector')
        messages = lowerRoles(messages)
      if (chargedDoors.has(door) && caller.budget) {
        const taken = caller.budget.take()
        if (!taken.ok) return refuse(door, 'rate_limited', taken.message)
      }
      admitted++
      return messages ? { ok: true, messages } : { ok: true }
    },
    count,
    stats: () => ({
      admitted,
      refused: Object.fromEntries(Object.entries(refused).map(([door, counts]) => [door, { ...counts }])),
    }),
  }
}
