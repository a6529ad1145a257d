/**
 * `event`: something happened in the session. It is stored for the model to see in later turns;
 * with `respond: true` a turn answers it now, heard by the session's followers (this connection
 * among them: a session a connection speaks to is one it follows). It takes one of the
 * connection's turns; nothing is sent back unless it is refused.
 */
import { defineFrameHandler } from './frame-handler.js'
import { sendFrameFailure } from './send-frame-failure.js'

export const tellEvent = defineFrameHandler('event', {
  doors: ['ws_event'],
  needsFollow: true,
  budget: (connection) => connection.turns.tryStart('connection'),
  async handle({ connection, frame, named, entered, slot }) {
    try {
      await connection.charpipe.sessions.event({
        session: entered.session,
        ...(frame.character ? { character: frame.character } : {}),
        text: frame.text,
        ...(frame.respond !== undefined ? { respond: frame.respond } : {}),
      })
    } catch (error) {
      sendFrameFailure(connection, {
        session: named,
        error,
        logged: 'an event failed',
        told: 'the event failed; see the server log',
      })
    } finally {
      slot.release()
    }
  },
})
