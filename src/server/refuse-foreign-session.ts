/**
 * The HTTP side of client namespaces (see create-session-owners.ts): the engine's session for the
 * session a request names, in the namespace of its `X-Charpipe-Client` key, or a 403 when a
 * request without a key names a reserved id. The admin token without a key names any session.
 */
import type { Context } from 'hono'
import type { SessionOwners } from './create-session-owners.js'
import { requestClientKey } from './require-access.js'

export type ResolveRequestSessionResult = { session: string; response?: undefined } | { response: Response }

export function resolveRequestSession(
  context: Context,
  owners: SessionOwners,
  session: string,
): ResolveRequestSessionResult {
  const key = requestClientKey(context)
  const resolved = owners.resolve(session, key, context.get('adminTokenUsed') === true)
  if (resolved.ok) return { session: resolved.session }
  return { response: context.json({ error: { code: 'forbidden', message: resolved.message } }, 403) }
}
