/**
 * Turn limits for `/api/chat` and `/v1/chat/completions`, per client: the token it presented (as a
 * hash) and its address. The slot is held until the answer's body has been sent or dropped, since a
 * streamed turn runs long after the route returned its Response.
 */
import { createHash } from 'node:crypto'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { MiddlewareHandler } from 'hono'
import { readPresentedToken } from './check-token.js'
import type { TurnLimiter } from './create-turn-limiter.js'

export interface LimitHttpTurnsOptions {
  limiter: TurnLimiter
}

/** Who a request comes from, for the limits: its token's hash and its address. */
export function identifyClient(authorization: string | undefined, address: string | undefined): string {
  const token = readPresentedToken(authorization)
  const tokenHash = token ? createHash('sha256').update(token).digest('base64url').slice(0, 16) : '-'
  return `${tokenHash}@${address ?? 'unknown'}`
}

export function limitHttpTurns(options: LimitHttpTurnsOptions): MiddlewareHandler {
  return async (context, next) => {
    let address: string | undefined
    try {
      address = getConnInfo(context).remote.address
    } catch {
      // Not on a Node socket (app.request in tests): the token alone names the client.
    }
    const slot = options.limiter.tryStart(identifyClient(context.req.header('authorization'), address))
    if (!slot.ok) return context.json({ error: { code: 'rate_limited', message: slot.message } }, 429)
    try {
      await next()
    } catch (error) {
      slot.release()
      throw error
    }
    const body = context.res.body
    if (!body) {
      slot.release()
      return
    }
    context.req.raw.signal.addEventListener('abort', slot.release, { once: true })
    const tracked = body.pipeThrough(
      new TransformStream({
        flush: () => slot.release(),
      }),
    )
    context.res = new Response(tracked, context.res)
  }
}
