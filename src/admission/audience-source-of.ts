/**
 * The source an audience message is counted under (`AudienceInput.source`): message ids and
 * speakers are compared only within one source, so a chat client that sends an id first can never
 * make a connector's member's message a `duplicate`, nor one client another's. The admin is one
 * source, a connector, a named client and a client key each their own; anyone else is the door's
 * fallback (a WebSocket connection, an HTTP address).
 */
import type { Caller } from './create-admission.js'

export function audienceSourceOf(caller: Caller, clientKey: string | undefined, fallback: string): string {
  if (caller.kind === 'admin') return 'admin'
  if (caller.kind === 'connector') return `connector:${caller.connectorKind ?? ''}:${caller.name ?? ''}`
  if (caller.kind === 'named_client') return `client:${caller.name ?? ''}`
  if (clientKey) return `key:${clientKey}`
  return fallback
}
