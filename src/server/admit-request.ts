/**
 * The HTTP side of the admission (src/admission/): who a request is (the admin, a named client, a
 * chat client) and which door its route is, so every route that names a session passes the same
 * `admit` as the WebSocket and the connectors.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { Admission, Caller, Door } from '../admission/index.js'

declare module 'hono' {
  interface ContextVariableMap {
    /** The server's admission, for every route that names a session (`resolveRequestSession`). */
    admission: Admission | undefined
  }
}

/** Puts the server's admission on every request. */
export function provideAdmission(admission: Admission): MiddlewareHandler {
  return async (context, next) => {
    context.set('admission', admission)
    await next()
  }
}

/** The caller a request is, from what `requireAccess` set on it. */
export function readRequestCaller(context: Context): Caller {
  const client = context.get('client')
  if (client) return { kind: 'named_client', name: client.name, follow: client.follow }
  // `access` is admin for the admin token, and for every request of a server with no admin token
  // (then whoever may chat may also change the config: there is nothing above it to keep).
  return context.get('access') === 'admin' ? { kind: 'admin' } : { kind: 'client' }
}

/** The door of a chat-surface request; undefined for administration (the admin token only). */
export function findRequestDoor(method: string, path: string): Door | undefined {
  if (path.startsWith('/v1/')) return 'v1'
  if (method === 'POST' && path === '/api/chat') return 'http_chat'
  const match = /^\/api\/sessions\/[^/]+\/(audience|open|observe|messages)$/.exec(path)
  if (!match) return undefined
  if (method === 'GET') return match[1] === 'messages' ? 'http_messages' : undefined
  if (method !== 'POST') return undefined
  return match[1] === 'audience' ? 'http_audience' : match[1] === 'open' ? 'http_open' : 'http_observe'
}
