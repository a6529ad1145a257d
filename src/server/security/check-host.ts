/**
 * Refuses, before any route runs, a request whose `Host` does not name this server (403): the
 * DNS-rebinding guard. A page on evil.example whose name was rebound to 127.0.0.1 is same-origin with
 * itself, so neither Origin checks nor CORS stop it; only the `Host` it must send gives it away.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { SecurityPolicy } from './create-security-policy.js'

/** The `Host` of a request (the URL's host when a test calls the app without one). */
export function readRequestHost(context: Context): string {
  return context.req.header('host') ?? new URL(context.req.url).host
}

export function checkHost(readPolicy: () => SecurityPolicy): MiddlewareHandler {
  return async (context, next) => {
    const host = readRequestHost(context)
    if (!readPolicy().isHostAllowed(host)) {
      return context.json(
        {
          error: {
            code: 'forbidden',
            message: `this server does not answer to the host ${JSON.stringify(host.slice(0, 100))}: add its name to server.allowed_hosts if it is reached by that name`,
          },
        },
        403,
      )
    }
    await next()
  }
}
