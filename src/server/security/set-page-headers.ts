/**
 * Headers that keep the web page (and every answer) from being framed, sniffed into script or made
 * to load code from elsewhere: `Content-Security-Policy` allowing the page's own scripts, styles and
 * connections only (and its WebSocket on the same host, spelled out for browsers where `'self'`
 * does not cover `ws:`), `frame-ancestors 'none'` with `X-Frame-Options: DENY` for older browsers,
 * `X-Content-Type-Options: nosniff` and no referrer.
 */
import type { MiddlewareHandler } from 'hono'
import { readRequestHost } from './check-host.js'

const basePolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')
const apiPolicy = `${basePolicy}; connect-src 'self'`

export function setPageHeaders(): MiddlewareHandler {
  return async (context, next) => {
    await next()
    const headers = context.res.headers
    headers.set('x-content-type-options', 'nosniff')
    headers.set('x-frame-options', 'DENY')
    headers.set('referrer-policy', 'no-referrer')
    const isPage = headers.get('content-type')?.startsWith('text/html') === true
    // The host was checked before any route ran, so it is a plain `name[:port]` here.
    const host = isPage ? readRequestHost(context) : ''
    headers.set(
      'content-security-policy',
      isPage ? `${basePolicy}; connect-src 'self' ws://${host} wss://${host}` : apiPolicy,
    )
  }
}
