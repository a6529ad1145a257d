/**
 * Two tokens, two surfaces, and named clients. `server.token` is what chat clients hold (a VTuber
 * front end, a device): it grants the WebSocket, `/api/chat`, `/v1/*`, reading a session's messages,
 * observing lines, sending audience messages and opening sessions (the audience queue's view and
 * moderation are admin). `server.admin_token`, when set, is needed for everything else (config,
 * doctor, memory and knowledge, session deletion, preview, tools, characters, metrics), and also
 * grants chat. Without an admin token, `server.token` grants both, as before; without either, the
 * server is open (loopback), and a request forwarded by a proxy without a token is refused (behind a
 * local proxy every socket peer is this machine; the headers that say "forwarded" are one list,
 * security/find-forwarding-header.ts). A `server.clients` token is that named client: chat only,
 * whatever the other tokens are, its sessions in its own namespace.
 * A token that is none of these is refused as not known, never served as a client without one: a
 * front end with a mistyped client token would otherwise lose its profile without a word. Only on a
 * server with no token and no named client at all is a presented token let pass unread (the
 * placeholder API key OpenAI client libraries insist on sending).
 * Which of the two a route needs is what it declared where it was registered (`admit`,
 * admit-request.ts): a door or `chat` is the chat surface, `admin` or nothing is administration.
 * The access a request was granted is kept on the context (`access`, `client`, `clientKey`) for the
 * routes to consult.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { ServerClientConfig } from '../config/schema.js'
import { findDeclaredAdmission } from './admit-request.js'
import { isTokenValid, readPresentedToken } from './check-token.js'
import { namedClientKey, readClientKey } from './create-session-owners.js'
import { findForwardingHeader } from './security/find-forwarding-header.js'

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

/** Whether a request's route is on the chat surface; a route that declares nothing is administration. */
function isChatRequest(context: Context): boolean {
  const declared = findDeclaredAdmission(context)
  return declared !== undefined && declared !== 'admin'
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

/** Whether the presented token is one the server has configured (not merely an open door). */
function carriesToken(presented: string | undefined, tokens: AccessTokens): boolean {
  return (
    (tokens.token !== '' && isTokenValid(presented, tokens.token)) ||
    (tokens.adminToken !== '' && isTokenValid(presented, tokens.adminToken))
  )
}

/** Whether the server has any token to compare a presented one with. */
function hasAnyToken(tokens: AccessTokens): boolean {
  return tokens.token !== '' || tokens.adminToken !== '' || (tokens.clients?.length ?? 0) > 0
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
    const needsAdmin = !isChatRequest(context)
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
    const known = carriesToken(presented, tokens)
    if (presented !== undefined && !known && hasAnyToken(tokens))
      return context.json(
        {
          error: {
            code: 'unauthorized',
            message:
              'the token is not known: it is no server.clients token, nor server.token or server.admin_token',
          },
        },
        401,
      )
    const access = grantAccess(presented, tokens)
    const forwarding = known ? undefined : findForwardingHeader(context.req.raw.headers)
    if (access !== undefined && forwarding !== undefined)
      return context.json(
        {
          error: {
            code: 'unauthorized',
            message: `a forwarded request (it carries ${forwarding}) needs a token: without one only this machine may connect; set server.token (and server.admin_token) and ${howToSend}`,
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
        : `a token is required: ${howToSend}`
    return context.json({ error: { code: 'unauthorized', message } }, 401)
  }
}

/** The namespace key of a request's sessions (set by `requireAccess`; the header when it did not run). */
export function requestClientKey(context: Context): string | undefined {
  return context.get('clientKey') ?? readClientKey(context.req.header('x-charpipe-client'))
}
