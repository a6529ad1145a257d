/**
 * The audience side of one WebSocket connection: `audience` and `activity` frames in, and the
 * sessions the connection follows. A connection follows every session it opened or sent any frame
 * to, and receives the turns the server starts there by itself (audience, idle) and their
 * `audience_dropped` events; turns of its own inputs reach it as before, never twice.
 */
import type { Charpipe } from '../engine/types.js'
import { BadRequestError } from '../shared/errors.js'
import { describeForeignSession } from './create-session-owners.js'
import type { ClientFrame } from './request-schemas.js'

export interface WebSocketAudienceOptions {
  charpipe: Charpipe
  /** Sends an event or frame to the client (dropped when the socket is closed). */
  send(payload: unknown): void
  /** Whether the connection may follow a session (its own, or one no client holds). */
  mayFollow(session: string): boolean
  /** Whether the connection may speak in a session (claiming it when no client holds it). */
  maySpeak(session: string): boolean
  /** Reports a refused frame to the client. */
  fail(session: string, error: unknown): void
}

export interface WebSocketAudience {
  follow(session: string): void
  handle(frame: Extract<ClientFrame, { type: 'audience' | 'activity' }>): void
  close(): void
}

/** Sessions one connection may follow at most (each costs a listener). */
const maxFollowed = 1000

export function createWebSocketAudience(options: WebSocketAudienceOptions): WebSocketAudience {
  const { charpipe } = options
  const followed = new Map<string, () => void>()
  const follow = (session: string) => {
    if (followed.has(session) || followed.size >= maxFollowed || !options.mayFollow(session)) return
    followed.set(
      session,
      charpipe.subscribe(session, (event) => options.send(event)),
    )
  }
  return {
    follow,
    handle(frame) {
      const session = frame.session ?? 'default'
      if (!options.maySpeak(session)) {
        options.fail(session, new BadRequestError(describeForeignSession(session)))
        return
      }
      try {
        if (frame.type === 'activity') {
          charpipe.activity({ session, speaking: frame.speaking })
          return
        }
        // Nothing is sent back: the drops reach followers (this connection too) as `audience_dropped`.
        charpipe.audience({
          session,
          messages: frame.messages,
          ...(frame.character ? { character: frame.character } : {}),
        })
      } catch (error) {
        options.fail(session, error)
      }
    },
    close() {
      for (const unsubscribe of followed.values()) unsubscribe()
      followed.clear()
    },
  }
}
