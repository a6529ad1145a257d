/**
 * The HTTP side of session binding (see create-session-owners.ts): a turn binds the session to the
 * request's client key; a turn or a read of a session bound to another key answers 403. The admin
 * token passes.
 */
import type { Context } from 'hono'
import { describeForeignSession, readClientKey, type SessionOwners } from './create-session-owners.js'

export function refuseForeignSession(
  context: Context,
  owners: SessionOwners,
  session: string,
  use: 'turn' | 'read' = 'turn',
): Response | undefined {
  if (context.get('adminTokenUsed')) return undefined
  const key = readClientKey(context.req.header('x-charpipe-client'))
  const allowed = use === 'turn' ? owners.claim(session, key) : owners.mayUse(session, key)
  if (allowed) return undefined
  return context.json({ error: { code: 'forbidden', message: describeForeignSession(session) } }, 403)
}
