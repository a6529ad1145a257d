/**
 * Two tokens, two surfaces, and named clients. `server.token` is what chat clients hold (a VTuber
 * front end, a device): it grants the WebSocket, `/api/chat`, `/v1/*`, reading a session's messages,
 * observing lines, sending audience messages and opening sessions (the audience queue's view and
 * moderation are admin). `server.admin_token`, when set, is needed for everything else (config,
 * doctor, memory and knowledge, session deletion, preview, tools, characters, metrics), and also
 * grants chat. Without an admin token, `server.token` grants both, as before; without either, the
 * server is open (loopback), and a request forwarded by a proxy without a token is refused (behind a
 * local proxy every socket peer is this machine). A `server.clients` token is that named client: chat only, whatever the
 * other tokens are, its sessions in its own namespace.
 * The access a request was granted is kept on the context (`access`, `client`, `clientKey`) for the
 * routes to consult.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { ServerClientConfig } from '../config/schema.js'
import { isTokenValid, readPresentedToken } from './check-token.js'
import { namedClientKey, readClientKey } from './create-session-owners.js'

export type Access = 'admin' | 'chat'

export interface AccessTokens {
  token: string
  adminToken: string
  /** `server.clients`: each token is one named client. */
  clients?: readonly ServerClientConfig[]
}

export interface RequireAccessOptions {
  /** The configured tokens, read at every request so a change applies at once. */
  readTokens: () => AccessTokens
  /** Also take `?token=` (the WebSocket upgrade only). @default false */
  acceptQueryToken?: boolean
  /** Called with each named client whose request is admitted (its last use). */
  onClientAdmitted?: (client: ServerClientConfig) => void
}

declare module 'hono' {
  interface ContextVariableMap {
    access: Access
    /** The request carried the configured `server.admin_token` (not merely an open server). */
    adminTokenUsed: boolean
    /** The named client (`server.clients`) whose token the request carried. */
    client: ServerClientConfig | undefined
    /** The namespace key of the request's sessions: the named client's, or `X-Charpipe-Client`. */
    clientKey: string | undefined
  }
}

/** Whether a request is on the chat surface (anything else is administration). */
function isChatRequest(method: string, path: string): boolean {
  if (path === '/ws' || path.startsWith('/v1/')) return true
  if (path === '/api/chat') return true
  if (/^\/api\/sessions\/[^/]+\/messages$/.test(path)) return method === 'GET'
  if (/^\/api\/sessions\/[^/]+\/(observe|open|audience)$/.test(path)) return method === 'POST'
  return false
}

/** What the presented token grants: admin, chat, or nothing (undefined). */
function grantAccess(presented: string | undefined, tokens: AccessTokens): Access | undefined {
  const { token, adminToken } = tokens
  if (!adminToken) {
    if (!token) return 'admin'
    return isTokenValid(presented, token) ? 'admin' : undefined
  }
  if (isTokenValid(presented, adminToken)) return 'admin'
  if (!token) return 'chat'
  return isTokenValid(presented, token) ? 'chat' : undefined
}

/**
 * Whether a request came through a proxy. "Without a token, only from this machine" trusts the
 * socket peer, and behind a local proxy every peer is this machine: such a request needs a token.
 */
function isForwarded(context: Context): boolean {
  return context.req.header('x-forwarded-for') !== undefined || context.req.header('forwarded') !== undefined
}

/** Whether the presented token is one the server has configured (not merely an open door). */
function carriesToken(presented: string | undefined, tokens: AccessTokens): boolean {
  return (
    (tokens.token !== '' && isTokenValid(presented, tokens.token)) ||
    (tokens.adminToken !== '' && isTokenValid(presented, tokens.adminToken))
  )
}

/** The named client whose token was presented, compared in constant time against each. */
function findNamedClient(
  presented: string | undefined,
  clients: readonly ServerClientConfig[] | undefined,
): ServerClientConfig | undefined {
  if (presented === undefined || !clients) return undefined
  let found: ServerClientConfig | undefined
  for (const client of clients) if (isTokenValid(presented, client.token)) found ??= client
  return found
}

/** Answers 401 with a JSON error when the request's token does not grant what its route needs. */
export function requireAccess(options: RequireAccessOptions): MiddlewareHandler {
  const howToSend = options.acceptQueryToken
    ? 'send "Authorization: Bearer <token>" or ?token='
    : 'send "Authorization: Bearer <token>"'
  return async (context, next) => {
    const tokens = options.readTokens()
    const presented = readPresentedToken(
      context.req.header('authorization'),
      options.acceptQueryToken ? context.req.url : undefined,
    )
    const needsAdmin = !isChatRequest(context.req.method, context.req.path)
    const client = findNamedClient(presented, tokens.clients)
    if (client) {
      if (needsAdmin)
        return context.json(
          {
            error: {
              code: 'unauthorized',
              message: `${context.req.method} ${context.req.path} is administration: client "${client.name}" has chat scope only`,
            },
          },
          401,
        )
      context.set('access', 'chat')
      context.set('adminTokenUsed', false)
      context.set('client', client)
      context.set('clientKey', namedClientKey(client.name))
      options.onClientAdmitted?.(client)
      return next()
    }
    const access = grantAccess(presented, tokens)
    if (access !== undefined && isForwarded(context) && !carriesToken(presented, tokens))
      return context.json(
        {
          error: {
            code: 'unauthorized',
            message: `a forwarded request (X-Forwarded-For or Forwarded) needs a token: without one only this machine may connect; set server.token (and server.admin_token) and ${howToSend}`,
          },
        },
        401,
      )
    if (access === 'admin' || (access === 'chat' && !needsAdmin)) {
      context.set('access', access)
      context.set('adminTokenUsed', tokens.adminToken !== '' && isTokenValid(presented, tokens.adminToken))
      context.set('client', undefined)
      context.set(
        'clientKey',
        readClientKey(
          context.req.header('x-charpipe-client'),
          options.acceptQueryToken ? context.req.url : undefined,
        ),
      )
      return next()
    }
    const message =
      access === 'chat'
        ? `${context.req.method} ${context.req.path} is administration: it needs server.admin_token`
        : presented
          ? 'the token is not valid'
          : `a token is required: ${howToSend}`
    return context.json({ error: { code: 'unauthorized', message } }, 401)
  }
}

/** The namespace key of a request's sessions (set by `requireAccess`; the header when it did not run). */
export function requestClientKey(context: Context): string | undefined {
  return context.get('clientKey') ?? readClientKey(context.req.header('x-charpipe-client'))
}
