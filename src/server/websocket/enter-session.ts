/**
 * The admission of one WebSocket frame (src/admission/): the session a keyed client named (its
 * namespace), then the door's checks. The engine's session and the messages as admitted, or
 * undefined after telling the client why not (unless `quiet`).
 */
import { type Door, followsConnectorSession } from '../../admission/index.js'
import type { EnteredSession, EnterOptions } from '../websocket-audience.js'
import type { WebSocketConnection } from './websocket-connection.js'

export type EnteringConnection = Pick<
  WebSocketConnection,
  'admission' | 'caller' | 'sessionOwners' | 'clientKey' | 'admin' | 'send'
>

export interface EnterSessionOptions extends EnterOptions {
  door: Door
  /** The session as the client named it. */
  named: string
}

export function enterSession(
  connection: EnteringConnection,
  options: EnterSessionOptions,
): EnteredSession | undefined {
  const { door, named } = options
  const tell = (payload: unknown) => {
    if (!options.quiet) connection.send(payload)
  }
  let session: string | undefined = named
  if (!followsConnectorSession(connection.caller, door, named) && connection.sessionOwners) {
    const resolved = connection.sessionOwners.resolve(named, connection.clientKey, connection.admin)
    if (!resolved.ok) {
      tell({ type: 'error', code: 'bad_request', session: named, message: resolved.message })
      return undefined
    }
    session = resolved.session
  }
  const admitted = connection.admission.admit({
    door,
    caller: connection.caller,
    session,
    named,
    ...(options.messages ? { messages: options.messages } : {}),
  })
  if (!admitted.ok) {
    tell({ type: 'error', code: admitted.code, session: named, message: admitted.reason })
    return undefined
  }
  return { session, ...(admitted.messages ? { messages: admitted.messages } : {}) }
}
