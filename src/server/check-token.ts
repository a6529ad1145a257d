/**
 * Bearer-token checks for HTTP and WebSocket calls. The comparison hashes both sides first so it
 * runs in constant time whatever the lengths, and the token is read at every call so a token set
 * through `PUT /api/config` applies at once.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'

/** True when `presented` equals `expected`, compared in constant time. */
export function isTokenValid(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false
  const left = createHash('sha256').update(presented).digest()
  const right = createHash('sha256').update(expected).digest()
  return timingSafeEqual(left, right)
}

/**
 * The token a request carries: `Authorization: Bearer …`, or `?token=` when `url` is given (only for
 * the WebSocket upgrade: browsers cannot set headers on a WebSocket, and a token in the query string
 * of plain requests ends up in logs and histories).
 */
export function readPresentedToken(authorization: string | undefined, url?: string): string | undefined {
  const match = authorization?.match(/^Bearer\s+(.+)$/i)
  if (match) return match[1]!.trim()
  if (url === undefined || !url.includes('token=')) return undefined
  return new URL(url, 'http://localhost').searchParams.get('token') ?? undefined
}

export interface RequireTokenOptions {
  /** The configured token; empty means auth is off. */
  readToken: () => string
  /** Also take `?token=` (the WebSocket upgrade only). @default false */
  acceptQueryToken?: boolean
}

/** Middleware answering 401 with a JSON error when a token is configured and not presented. */
export function requireToken(options: RequireTokenOptions): MiddlewareHandler {
  const howToSend = options.acceptQueryToken
    ? 'send "Authorization: Bearer <server.token>" or ?token='
    : 'send "Authorization: Bearer <server.token>"'
  return async (context, next) => {
    const expected = options.readToken()
    if (expected) {
      const presented = readPresentedToken(
        context.req.header('authorization'),
        options.acceptQueryToken ? context.req.url : undefined,
      )
      if (!isTokenValid(presented, expected)) {
        return context.json(
          {
            error: {
              code: 'unauthorized',
              message: presented ? 'the token is not valid' : `a token is required: ${howToSend}`,
            },
          },
          401,
        )
      }
    }
    await next()
  }
}
