/**
 * Turn limits for `/api/chat` and `/v1/chat/completions`, per client: its address (the forwarded
 * one behind `server.trusted_proxies`, see find-client-address.ts) and the session it names, with
 * the `server.limits` of one client; and per address across all its sessions, ten times those (a
 * client naming a new session per request still meets a bound). Users behind one proxy no longer
 * share one bucket, and two conversations of one user do not wait for each other. The slot is held
 * until the answer's body has been sent or dropped, since a streamed turn runs long after the route
 * returned its Response.
 */
import type { Context, MiddlewareHandler } from 'hono'
import type { StartTurnResult, TurnLimiter } from './create-turn-limiter.js'
import { readRequestAddress } from './read-request-address.js'
import { requestClientKey } from './require-access.js'

export interface LimitHttpTurnsOptions {
  /** Limits of one session of one client address. */
  limiter: TurnLimiter
  /** Limits of one client address across its sessions. */
  addressLimiter: TurnLimiter
  /** `server.trusted_proxies`, read per request so a config change applies at once. */
  readTrustedProxies: () => readonly string[]
}

/** The session a turn request names: `X-Session-Id`, else the body's `session` or `user`. */
async function readNamedSession(context: Context): Promise<string> {
  const header = context.req.header('x-session-id')
  if (header) return header
  try {
    const body = JSON.parse(await context.req.text()) as { session?: unknown; user?: unknown }
    const named = body?.session ?? body?.user
    return typeof named === 'string' ? named : ''
  } catch {
    // Not JSON: the route answers 400; the limits count it under no session.
    return ''
  }
}

/** Who a request comes from, for the limits: its address, and the session in its key's namespace. */
async function identifyClient(
  context: Context,
  trustedProxies: readonly string[],
): Promise<{ address: string; session: string }> {
  const address = readRequestAddress(context, trustedProxies)
  const key = requestClientKey(context) ?? ''
  return { address, session: JSON.stringify([key, await readNamedSession(context)]) }
}

function takeSlots(options: LimitHttpTurnsOptions, address: string, session: string): StartTurnResult {
  const own = options.addressLimiter.tryStart(address)
  if (!own.ok) return { ok: false, message: `${own.message}, across the sessions of one address` }
  const slot = options.limiter.tryStart(`${address} ${session}`)
  if (!slot.ok) {
    own.release()
    return slot
  }
  return {
    ok: true,
    release: () => {
      slot.release()
      own.release()
    },
  }
}

export function limitHttpTurns(options: LimitHttpTurnsOptions): MiddlewareHandler {
  return async (context, next) => {
    const { address, session } = await identifyClient(context, options.readTrustedProxies())
    const slot = takeSlots(options, address, session)
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
