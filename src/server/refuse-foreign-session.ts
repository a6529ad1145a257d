/**
 * The HTTP side of client namespaces (see create-session-owners.ts) and of the admission: the
 * engine's session for the session a request names, in the namespace of its client key, or a 403
 * when a request without a key names a reserved id, or when the session is a connector's and the
 * request may not act there (src/admission/). The admin token without a key names any session.
 */
import type { Context } from 'hono'
import { followsConnectorSession } from '../admission/index.js'
import type { AudienceMessage } from '../audience/types.js'
import { readRequestCaller } from './admit-request.js'
import type { SessionOwners } from './create-session-owners.js'
import { requestClientKey } from './require-access.js'

export type ResolveRequestSessionResult =
  | { session: string; messages?: AudienceMessage[]; response?: undefined }
  | { response: Response }

export function resolveRequestSession(
  context: Context,
  owners: SessionOwners,
  session: string,
  /** An audience request's messages: answered as the caller may send them (roles, gifts). */
  messages?: readonly AudienceMessage[],
): ResolveRequestSessionResult {
  const admission = context.get('admission')
  // The door the route declared where it was registered (`admit`).
  const door = context.get('door')
  // A named client that follows a connector names its sessions as they are (as over WebSocket).
  const follows = door !== undefined && followsConnectorSession(readRequestCaller(context), door, session)
  const key = requestClientKey(context)
  const resolved = follows
    ? { ok: true as const, session }
    : owners.resolve(session, key, context.get('adminTokenUsed') === true)
  if (!resolved.ok)
    return { response: context.json({ error: { code: 'forbidden', message: resolved.message } }, 403) }
  if (!admission) return { session: resolved.session }
  if (door === undefined) {
    // Administration reaches every session; anyone else only through a door (fails closed).
    if (readRequestCaller(context).kind === 'admin') return { session: resolved.session }
    const message = `${context.req.method} ${context.req.path} declares no door for a session`
    return { response: context.json({ error: { code: 'forbidden', message } }, 403) }
  }
  const admitted = admission.admit({
    door,
    caller: readRequestCaller(context),
    session: resolved.session,
    named: session,
    ...(messages ? { messages } : {}),
  })
  if (admitted.ok)
    return { session: resolved.session, ...(admitted.messages ? { messages: admitted.messages } : {}) }
  const status = admitted.code === 'rate_limited' ? 429 : 403
  return { response: context.json({ error: { code: admitted.code, message: admitted.reason } }, status) }
}
