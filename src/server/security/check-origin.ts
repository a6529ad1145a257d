/**
 * Refuses (403) a WebSocket upgrade or a state-changing request (anything but GET and HEAD) whose
 * `Origin` is neither the server's own nor one of `server.allowed_origins`. Browsers always send
 * `Origin` on those, so a foreign page cannot chat, spend tokens or change the config; programs
 * (curl, the official SDKs) send none and are not affected. `Origin: null` (sandboxed frames,
 * files) is foreign.
 */
import type { MiddlewareHandler } from 'hono'
import { readRequestHost } from './check-host.js'
import type { SecurityPolicy } from './create-security-policy.js'

export function checkOrigin(readPolicy: () => SecurityPolicy): MiddlewareHandler {
  return async (context, next) => {
    const origin = context.req.header('origin')
    if (origin === undefined) return next()
    const method = context.req.method
    const isReadOnly = (method === 'GET' || method === 'HEAD') && context.req.header('upgrade') === undefined
    if (isReadOnly || readPolicy().isOriginAllowed(origin, readRequestHost(context))) return next()
    return context.json(
      {
        error: {
          code: 'forbidden',
          message: `requests from the web page at ${JSON.stringify(origin.slice(0, 200))} are not allowed: add that origin to server.allowed_origins to let its pages use this server`,
        },
      },
      403,
    )
  }
}
