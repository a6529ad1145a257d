/**
 * Tells a client that what its frame asked for failed: a CharpipeError is the client's to read;
 * anything else goes to the log and is only named.
 */
import { CharpipeError } from '../../shared/errors.js'
import type { WebSocketConnection } from './websocket-connection.js'

export interface SendFrameFailureOptions {
  /** The session as the client named it (absent: the frame failed before one was read). */
  session?: string
  error: unknown
  /** What the log says. */
  logged: string
  /** What the client reads when the error is not its to read. */
  told: string
}

export function sendFrameFailure(
  connection: Pick<WebSocketConnection, 'logger' | 'send'>,
  options: SendFrameFailureOptions,
): void {
  const { error, session } = options
  const known = CharpipeError.isInstance(error)
  if (!known) connection.logger.error({ err: error }, options.logged)
  connection.send({
    type: 'error',
    code: known ? error.code : 'internal',
    ...(session === undefined ? {} : { session }),
    message: known ? error.message : options.told,
  })
}
