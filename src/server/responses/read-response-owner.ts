/**
 * Who a stored response belongs to: the admin token, a named client (`server.clients`), a client
 * key (`X-Charpipe-Client`), or else the keyless origin (the chat token, or an open server, at one
 * client address: the origin the audience routes count by). Only its owner reads, continues,
 * lists the input of or deletes a response; to anyone else it does not exist.
 */
import type { Context } from 'hono'
import { readAudienceOrigin } from '../limit-session-requests.js'
import type { ServerDependencies } from '../server-dependencies.js'

export function readResponseOwner(
  context: Context,
  dependencies: Pick<ServerDependencies, 'configManager'>,
): string {
  if (context.get('adminTokenUsed') === true) return 'admin'
  const client = context.get('client')
  if (client) return `client:${client.name}`
  const key = context.get('clientKey')
  if (key !== undefined) return `key:${key}`
  const trustedProxies = dependencies.configManager.current().server.trusted_proxies
  return `origin:${readAudienceOrigin(context, trustedProxies)}`
}
