/**
 * `GET /api/clients` (admin): the named clients (`server.clients`) with their profile and last use,
 * for the page's client list. Their tokens are never part of it.
 */
import type { Hono } from 'hono'
import type { ClientUsage } from '../create-client-usage.js'
import type { ServerDependencies } from '../server-dependencies.js'

export function registerClientRoutes(
  app: Hono,
  dependencies: ServerDependencies & { clientUsage: ClientUsage },
): void {
  app.get('/api/clients', dependencies.admit('admin'), (context) => {
    const { clients } = dependencies.configManager.current().server
    return context.json({
      clients: clients.map((client) => {
        const lastUsedAt = dependencies.clientUsage.lastUsedAt(client.name)
        return {
          name: client.name,
          profile: client.profile,
          follow: client.follow,
          last_used_at: lastUsedAt === undefined ? null : new Date(lastUsedAt).toISOString(),
        }
      }),
    })
  })
}
