/**
 * The client address of a request, for limits: the socket's peer, or the address behind
 * `server.trusted_proxies` (find-client-address.ts); `unknown` off a Node socket (`app.request` in
 * tests), where every request comes from one client.
 */
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { findClientAddress } from './find-client-address.js'

export function readRequestAddress(context: Context, trustedProxies: readonly string[]): string {
  let socketAddress: string | undefined
  try {
    socketAddress = getConnInfo(context).remote.address
  } catch {
    // Not on a Node socket: the address stays unknown.
  }
  return (
    findClientAddress({
      socketAddress,
      forwardedFor: context.req.header('x-forwarded-for'),
      trustedProxies,
    }) ?? 'unknown'
  )
}
