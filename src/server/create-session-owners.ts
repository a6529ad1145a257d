/**
 * Sessions live in the namespace of the client key that uses them, so one chat client can never
 * reach, read, interrupt or lock another's. A client names itself with `X-Charpipe-Client: <key>`
 * (HTTP, and the WebSocket upgrade) or `?client=<key>` (WebSocket upgrade, for browsers): a long
 * random string it keeps. What such a client calls session `diary` the engine keeps as
 * `~<hash of the key>~diary`; another key's `diary`, and the `diary` of clients without a key (the
 * web page, simple apps), are other sessions. Nothing is bound and nothing is held in memory: the
 * namespace is the key itself, so no flood of keys or sessions can take a session from its client,
 * and a restart changes nothing. Session ids that start with `~` are refused from clients without a
 * key (only the admin token may name them, to read a keyed client's session).
 */
import { createHash } from 'node:crypto'

export type ResolveSessionResult = { ok: true; session: string } | { ok: false; message: string }

export interface SessionOwners {
  /** The engine's session for what the client calls `session`, or why the client may not name it. */
  resolve(session: string, clientKey: string | undefined, admin?: boolean): ResolveSessionResult
  /** What the client calls the engine's `session` (the reverse of `resolve`). */
  nameFor(session: string, clientKey: string | undefined): string
}

const reservedPrefix = '~'

export function createSessionOwners(): SessionOwners {
  // Hashing a key costs a microsecond or two; a connection asks again for every frame.
  const namespaces = new Map<string, string>()
  const namespaceOf = (key: string) => {
    let namespace = namespaces.get(key)
    if (namespace === undefined) {
      namespace = `${reservedPrefix}${createHash('sha256').update(key).digest('base64url').slice(0, 22)}${reservedPrefix}`
      if (namespaces.size >= 10_000) namespaces.clear()
      namespaces.set(key, namespace)
    }
    return namespace
  }
  return {
    resolve(session, clientKey, admin = false) {
      if (clientKey !== undefined) return { ok: true, session: `${namespaceOf(clientKey)}${session}` }
      if (session.startsWith(reservedPrefix) && !admin)
        return { ok: false, message: describeForeignSession(session) }
      return { ok: true, session }
    },
    nameFor(session, clientKey) {
      if (clientKey === undefined) return session
      const namespace = namespaceOf(clientKey)
      return session.startsWith(namespace) ? session.slice(namespace.length) : session
    },
  }
}

/**
 * The client key a request presents (`X-Charpipe-Client`, or `?client=` when `url` is given). A key
 * with a control character is none: those keys are the named clients' (`namedClientKey`).
 */
export function readClientKey(header: string | undefined, url?: string): string | undefined {
  const fromHeader = header?.trim()
  if (fromHeader) return hasControlCharacter(fromHeader) ? undefined : fromHeader
  if (url === undefined || !url.includes('client=')) return undefined
  const fromQuery = new URL(url, 'http://localhost').searchParams.get('client')?.trim()
  return fromQuery && !hasControlCharacter(fromQuery) ? fromQuery : undefined
}

/**
 * The namespace key of the named client `name` (`server.clients`): it starts with a control
 * character, which `readClientKey` never returns, so no presented key can reach its sessions, and it
 * does not change when the client's token does.
 */
export function namedClientKey(name: string): string {
  return `\u0000client:${name}`
}

const controlCharacter = /[\u0000-\u001f\u007f]/

function hasControlCharacter(text: string): boolean {
  return controlCharacter.test(text)
}

/** The message of a refusal for `session`. */
function describeForeignSession(session: string): string {
  return `session "${session}" is reserved: session ids starting with "~" belong to clients that send an X-Charpipe-Client key`
}

/** `event` with the session as its client calls it (the same object when nothing changes). */
export function renameEventSession<Event extends { session?: string }>(event: Event, name: string): Event {
  return event.session === undefined || event.session === name ? event : { ...event, session: name }
}
