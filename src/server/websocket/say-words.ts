/**
 * `say`: the character says the frame's words as they are, in a turn of the session's (its
 * followers hear it, this connection among them: a session a connection speaks to is one it
 * follows). It takes one of the connection's turns; nothing is sent back unless it is refused.
 */
import { defineFrameHandler } from './frame-handler.js'
import { sendFrameFailure } from './send-frame-failure.js'

export const sayWords = defineFrameHandler('say', {
  doors: ['ws_say'],
  needsFollow: true,
  budget: (connection) => connection.turns.tryStart('connection'),
  handle({ connection, frame, named, entered, slot }) {
    try {
      connection.charpipe.sessions.say({
        session: entered.session,
        ...(frame.character ? { character: frame.character } : {}),
        text: frame.text,
        ...(frame.emotion !== undefined ? { emotion: frame.emotion } : {}),
      })
    } catch (error) {
      sendFrameFailure(connection, {
        session: named,
        error,
        logged: 'a say failed',
        told: 'the say failed; see the server log',
      })
    } finally {
      // Counted in the minute; the turn itself is the session's, not held by this connection.
      slot.release()
    }
  },
})
