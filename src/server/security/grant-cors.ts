/**
 * CORS for `server.allowed_origins` and for them only: their preflights get an answer naming the
 * methods and headers the API uses, their requests get `Access-Control-Allow-Origin` with their own
 * origin (never `*`, never credentials: the API uses bearer tokens, not cookies). Every other origin
 * gets no CORS header at all, so its pages cannot read any answer.
 */
import type { MiddlewareHandler } from 'hono'
import type { SecurityPolicy } from './create-security-policy.js'

const allowedMethods = 'GET, HEAD, POST, PUT, PATCH, DELETE'
const allowedHeaders = 'authorization, content-type, x-session-id, x-charpipe-client'

export function grantCors(readPolicy: () => SecurityPolicy): MiddlewareHandler {
  return async (context, next) => {
    const origin = context.req.header('origin')
    if (origin === undefined || !readPolicy().isCorsOrigin(origin)) return next()
    if (context.req.method === 'OPTIONS' && context.req.header('access-control-request-method')) {
      return context.body(null, 204, {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': allowedMethods,
        'access-control-allow-headers': allowedHeaders,
        'access-control-max-age': '600',
        vary: 'Origin',
      })
    }
    await next()
    context.res.headers.set('access-control-allow-origin', origin)
    context.res.headers.append('vary', 'Origin')
  }
}
