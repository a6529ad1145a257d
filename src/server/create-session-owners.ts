/**
 * Sessions bound to a client key, so one chat client reads and interrupts only its own sessions.
 * A client names itself with `X-Charpipe-Client: <key>` (HTTP, and the WebSocket upgrade) or
 * `?client=<key>` (WebSocket upgrade, for browsers): a long random string it keeps. The first turn
 * a keyed client starts in a session binds the session to the key's hash; from then on requests
 * for that session (turns, reading its messages, interrupting it) need the same key, or the admin
 * token. Clients without a key use unbound sessions as before. Bindings live in memory: after a
 * restart a session is bound again by the first keyed client that uses it.
 */
import { createHash } from 'node:crypto'

export interface SessionOwners {
  /** Binds `session` to `clientKey` when unbound; true when the client may use the session. */
  claim(session: string, clientKey: string | undefined): boolean
  /** True when the client may read or interrupt `session` (unbound sessions are open). */
  mayUse(session: string, clientKey: string | undefined): boolean
}

export interface CreateSessionOwnersOptions {
  /** Most bindings kept; the oldest are forgotten past it. @default 100000 */
  maxSessions?: number
}

export function createSessionOwners(options: CreateSessionOwnersOptions = {}): SessionOwners {
  const maxSessions = options.maxSessions ?? 100_000
  const owners = new Map<string, string>()
  const hash = (key: string) => createHash('sha256').update(key).digest('base64url')

  const mayUse = (session: string, clientKey: string | undefined) => {
    const owner = owners.get(session)
    return owner === undefined || (clientKey !== undefined && owner === hash(clientKey))
  }

  return {
    mayUse,
    claim(session, clientKey) {
      if (!mayUse(session, clientKey)) return false
      if (clientKey !== undefined && !owners.has(session)) {
        owners.set(session, hash(clientKey))
        if (owners.size > maxSessions) owners.delete(owners.keys().next().value!)
      }
      return true
    },
  }
}

/** The client key a request presents (`X-Charpipe-Client`, or `?client=` when `url` is given). */
export function readClientKey(header: string | undefined, url?: string): string | undefined {
  const fromHeader = header?.trim()
  if (fromHeader) return fromHeader
  if (url === undefined || !url.includes('client=')) return undefined
  return new URL(url, 'http://localhost').searchParams.get('client')?.trim() || undefined
}

/** The message of a refusal for `session`. */
export function describeForeignSession(session: string): string {
  return `session "${session}" belongs to another client: send its X-Charpipe-Client key (or the admin token)`
}
