/**
 * Bearer-token checks for HTTP and WebSocket calls (the one middleware that applies them is
 * `require-access.ts`). The comparison hashes both sides first so it
 * runs in constant time whatever the lengths, and the token is read at every call so a token set
 * through `PUT /api/config` applies at once.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

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
