/**
 * `interrupt`: stops the session's turn (and its queue with `clear_queue`). What was heard becomes
 * the character's stored words: only the connection that receives the turn (it plays the speech)
 * or an admin may say it. Anyone admitted may still stop the turn.
 */
import { defineFrameHandler } from './frame-handler.js'

export const interruptTurn = defineFrameHandler('interrupt', {
  doors: ['ws_interrupt'],
  handle({ connection, frame, entered }) {
    const { session } = entered
    const heard = connection.ownTurns.has(session) || connection.admin ? frame.heard : undefined
    connection.charpipe
      .interrupt(session, {
        ...(heard !== undefined ? { heard } : {}),
        ...(frame.clear_queue ? { clearQueue: true } : {}),
        ...(frame.character ? { character: frame.character } : {}),
      })
      .catch((error: unknown) => {
        connection.logger.error({ err: error }, 'interrupt failed')
        connection.send({
          type: 'error',
          code: 'internal',
          message: 'the interrupt failed; see the server log',
        })
      })
  },
})
