/**
 * Two tokens, two surfaces. `server.token` is what chat clients hold (a VTuber front end, a device):
 * it grants the WebSocket, `/api/chat`, `/v1/*`, reading a session's messages, observing lines,
 * sending audience messages and opening sessions (the audience queue's view and moderation are admin).
 * `server.admin_token`, when set, is needed for everything else (config, doctor, memory and
 * knowledge, session deletion, preview, tools, characters, metrics), and also grants chat. Without an
 * admin token, `server.token` grants both, as before; without either, the server is open (loopback).
 * The access a request was granted is kept on the context (`access`) for the routes to consult.
 */
import type { MiddlewareHandler } from 'hono'
import { isTokenValid, readPresentedToken } from './check-token.js'

export type Access = 'admin' | 'chat'

export interface RequireAccessOptions {
  /** The configured tokens, read at every request so a change applies at once. */
  readTokens: () => { token: string; adminToken: string }
  /** Also take `?token=` (the WebSocket upgrade only). @default false */
  acceptQueryToken?: boolean
}

declare module 'hono' {
  interface ContextVariableMap {
    access: Access
    /** The request carried the configured `server.admin_token` (not merely an open server). */
    adminTokenUsed: boolean
  }
}

/** Whether a request is on the chat surface (anything else is administration). */
export function isChatRequest(method: string, path: string): boolean {
  if (path === '/ws' || path.startsWith('/v1/')) return true
  if (path === '/api/chat') return true
  if (/^\/api\/sessions\/[^/]+\/messages$/.test(path)) return method === 'GET'
  if (/^\/api\/sessions\/[^/]+\/(observe|open|audience)$/.test(path)) return method === 'POST'
  return false
}

/** What the presented token grants: admin, chat, or nothing (undefined). */
export function grantAccess(
  presented: string | undefined,
  tokens: { token: string; adminToken: string },
): Access | undefined {
  const { token, adminToken } = tokens
  if (!adminToken) {
    if (!token) return 'admin'
    return isTokenValid(presented, token) ? 'admin' : undefined
  }
  if (isTokenValid(presented, adminToken)) return 'admin'
  if (!token) return 'chat'
  return isTokenValid(presented, token) ? 'chat' : undefined
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
    const access = grantAccess(presented, tokens)
    const needsAdmin = !isChatRequest(context.req.method, context.req.path)
    if (access === 'admin' || (access === 'chat' && !needsAdmin)) {
      context.set('access', access)
      context.set('adminTokenUsed', tokens.adminToken !== '' && isTokenValid(presented, tokens.adminToken))
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
