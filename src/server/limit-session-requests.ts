/**
 * The request bound of the routes that store lines in a session or open one by name:
 * `POST /api/sessions/:id/audience`, `/observe` and `/open` together take from one origin's
 * `server.limits.audience_requests_per_minute` (create-audience-origins.ts). Past it a request is
 * answered 429 `rate_limited` with `Retry-After` before its body is read, so a flood stores nothing.
 */
import type { Context, MiddlewareHandler } from 'hono'
import { audienceSourceOf } from '../admission/index.js'
import { readRequestCaller } from './admit-request.js'
import type { AudienceOrigins } from './create-audience-origins.js'
import { readRequestAddress } from './read-request-address.js'

/** Who sent a request, for its limits: the token's holder at the client address. */
export function readAudienceOrigin(context: Context, trustedProxies: readonly string[]): string {
  // The holder as the admission names it, without the client key a caller may choose freely.
  const holder = audienceSourceOf(readRequestCaller(context), undefined, 'chat')
  return `${holder} ${readRequestAddress(context, trustedProxies)}`
}

export interface LimitSessionRequestsOptions {
  origins: AudienceOrigins
  /** `server.trusted_proxies`, read per request so a config change applies at once. */
  readTrustedProxies: () => readonly string[]
}

export function limitSessionRequests(options: LimitSessionRequestsOptions): MiddlewareHandler {
  return async (context, next) => {
    const origin = readAudienceOrigin(context, options.readTrustedProxies())
    const request = options.origins.takeRequest(origin)
    if (request.ok) return next()
    const door = context.get('door')
    if (door) context.get('admission')?.count(door, 'rate_limited')
    context.header('retry-after', String(Math.ceil(request.retryAfterMs / 1000)))
    return context.json({ error: { code: 'rate_limited', message: request.message } }, 429)
  }
}
