/**
 * The audience side of one WebSocket connection: `audience` and `activity` frames in, and the
 * sessions the connection follows. A connection follows every session it opened or sent any frame
 * to (at most `server.limits.live_sessions`: each may get turns the server starts by itself), and
 * receives the turns the server starts there (audience, idle) and their `audience_dropped` events;
 * turns of its own inputs reach it as before, never twice. A follow passes the admission by its own
 * door (`ws_follow`, quietly); the frames reach here admitted (websocket/dispatch-frame.ts). The idle turns a followed session gets,
 * and the turns answering the connection's audience messages, count against its `turns_per_minute`
 * when they start; past it the messages wait in the selector's bounds.
 */
import type { Door } from '../admission/index.js'
import type { AudienceMessage, AudienceTurnAdmitter } from '../audience/types.js'
import type { Charpipe } from '../engine/types.js'
import { renameEventSession } from './create-session-owners.js'
import type { ClientFrame } from './request-schemas.js'

/** The door a connection follows a session by (tried for every frame it sends). */
export const followDoor: Door = 'ws_follow'

export interface EnteredSession {
  session: string
  messages?: AudienceMessage[]
}

export interface EnterOptions {
  messages?: readonly AudienceMessage[]
  /** Refuse without telling the client (a follow is tried for every frame). */
  quiet?: boolean
}

export interface WebSocketAudienceOptions {
  charpipe: Charpipe
  /** Sends an event or frame to the client (dropped when the socket is closed). */
  send(payload: unknown): void
  /** Passes the admission: the engine's session, or undefined when refused. */
  enter(door: Door, named: string, options?: EnterOptions): EnteredSession | undefined
  /** `server.limits.live_sessions`, read at every new follow. */
  readLiveSessions(): number
  /** Charges an idle turn of a followed session to this connection's turns; false: its budget is spent. */
  admitIdle(): boolean
  /** Charges a turn answering this connection's audience messages to its turns (when it starts). */
  admitTurn: AudienceTurnAdmitter
  /** Who this connection's audience messages are from (their ids are compared only among its own). */
  source: string
  /** Reports a frame the engine refused to the client (`named`: the session as the client named it). */
  fail(session: string, error: unknown): void
}

export interface WebSocketAudience {
  /** Follows a session; the reason when the connection follows too many already. */
  follow(named: string): string | undefined
  /** An admitted `audience` frame: its messages (as admitted) to the session's selector. */
  send(options: {
    named: string
    entered: EnteredSession
    frame: Extract<ClientFrame, { type: 'audience' }>
  }): void
  /** An admitted `activity` frame. */
  reportActivity(options: { named: string; entered: EnteredSession; speaking: boolean }): void
  close(): void
}

export function createWebSocketAudience(options: WebSocketAudienceOptions): WebSocketAudience {
  const { charpipe } = options
  const followed = new Map<string, () => void>()
  const follow = (named: string): string | undefined => {
    const entered = options.enter(followDoor, named, { quiet: true })
    if (!entered || followed.has(entered.session)) return undefined
    const limit = options.readLiveSessions()
    if (followed.size >= limit)
      return `this connection already follows ${followed.size} sessions: at most ${limit} (server.limits.live_sessions)`
    followed.set(
      entered.session,
      charpipe.sessions.follow({
        session: entered.session,
        onEvent: (event) => options.send(renameEventSession(event, named)),
        admitIdle: options.admitIdle,
      }),
    )
    return undefined
  }
  return {
    follow,
    send({ named, entered, frame }) {
      try {
        // Nothing is sent back: the drops reach followers (this connection too) as `audience_dropped`.
        charpipe.audience.send({
          session: entered.session,
          messages: entered.messages ?? frame.messages,
          admitTurn: options.admitTurn,
          source: options.source,
          ...(frame.character ? { character: frame.character } : {}),
        })
      } catch (error) {
        options.fail(named, error)
      }
    },
    reportActivity({ named, entered, speaking }) {
      try {
        charpipe.sessions.activity({ session: entered.session, speaking })
      } catch (error) {
        options.fail(named, error)
      }
    },
    close() {
      for (const unsubscribe of followed.values()) unsubscribe()
      followed.clear()
    },
  }
}
