/**
 * `user_input`: a turn of the connection's own, its events sent as frames as they happen
 * (websocket-dialect.ts through drive-turn.ts). An early transcript (`preflight: true`) only
 * prepares its turn: it is not a turn in the metrics (the final input that takes it is) and holds
 * no turn slot, but it may start a model request, so early transcripts have their own
 * `turns_per_minute` per connection; nothing is sent back for it unless it is refused.
 */
import { convertWireInput } from '../convert-wire-input.js'
import { renameEventSession } from '../create-session-owners.js'
import { driveTurn } from '../drive-turn.js'
import { relayTurn } from '../stream-turn.js'
import { defineFrameHandler, type FrameOf, type HandleFrameOptions } from './frame-handler.js'
import type { WebSocketConnection } from './websocket-connection.js'
import { createWebSocketDialect } from './websocket-dialect.js'

type UserInputFrame = FrameOf<'user_input'>

const isEarly = (frame: UserInputFrame) => frame.preflight === true

function convertFrameInput(frame: UserInputFrame, session: string) {
  return convertWireInput({
    session,
    ...(frame.character ? { character: frame.character } : {}),
    text: frame.text,
    emotion: frame.emotion,
    images: frame.images,
    speaker: frame.speaker,
    reply_images: frame.reply_images,
    ...(isEarly(frame) ? { preflight: true } : frame.id ? { id: frame.id } : {}),
  })
}

/** Prepares the turn of an early transcript; only a refusal or a failure is sent back. */
async function prepareEarlyTurn(options: HandleFrameOptions<'user_input'>): Promise<void> {
  const { connection, frame, named, entered } = options
  try {
    await connection.charpipe.run(convertFrameInput(frame, entered.session), {
      onEvent: (event) => {
        if (event.type === 'llm_error')
          connection.send({ type: 'error', code: event.code, session: named, message: event.message })
      },
    })
  } catch (error) {
    connection.logger.error({ err: error }, 'preparing a preflight failed')
    connection.send({
      type: 'error',
      code: 'internal',
      session: named,
      message: 'the preflight failed; see the server log',
    })
  }
}

function countOwnTurn(connection: WebSocketConnection, session: string, by: 1 | -1): void {
  const left = (connection.ownTurns.get(session) ?? 0) + by
  if (left > 0) connection.ownTurns.set(session, left)
  else connection.ownTurns.delete(session)
}

/** Runs the turn; its events go to the client as they happen, its slot is freed when it ends. */
async function runOwnTurn(options: HandleFrameOptions<'user_input'>): Promise<void> {
  const { connection, frame, named, entered, slot } = options
  const { session } = entered
  countOwnTurn(connection, session, 1)
  try {
    await driveTurn({
      source: {
        relay: (onEvent) =>
          relayTurn({
            charpipe: connection.charpipe,
            input: convertFrameInput(frame, session),
            signal: connection.closed,
            metrics: connection.metrics,
            endpoint: 'ws',
            onEvent,
            // After llm_done: the interrupted turn's write failed; the client may resend its input.
            onTurnNotStored: (event) => connection.send(renameEventSession(event, named)),
          }),
      },
      dialect: createWebSocketDialect(named),
      transport: {
        write: (frame) => (frame.type === 'error' ? connection.send(frame) : connection.sendEvent(frame)),
      },
      onFailure: (error) => connection.logger.error({ err: error }, 'websocket turn failed'),
    })
  } finally {
    slot.release()
    countOwnTurn(connection, session, -1)
  }
}

export const takeUserInput = defineFrameHandler('user_input', {
  doors: ['ws_user_input', 'ws_preflight'],
  selectDoor: (frame) => (isEarly(frame) ? 'ws_preflight' : 'ws_user_input'),
  budget(connection, frame) {
    const early = isEarly(frame)
    const slot = connection.turns.tryStart(early ? 'preflight' : 'connection')
    if (!slot.ok) return early ? { ...slot, message: `preflight: ${slot.message}` } : slot
    // An early transcript counts in its minute but holds no slot while it is prepared.
    if (early) slot.release()
    return early ? { ok: true, release: () => {} } : slot
  },
  handle: (options) => (isEarly(options.frame) ? prepareEarlyTurn(options) : runOwnTurn(options)),
})
