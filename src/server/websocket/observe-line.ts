/**
 * `observe`: a line said in the session that needs no reply. Nothing is sent back unless it is
 * refused: a flood would echo a flood.
 */
import { defineFrameHandler } from './frame-handler.js'
import { sendFrameFailure } from './send-frame-failure.js'

export const observeLine = defineFrameHandler('observe', {
  doors: ['ws_observe'],
  handle({ connection, frame, named, entered }) {
    try {
      connection.charpipe.sessions.observe({
        session: entered.session,
        speaker: frame.speaker,
        text: frame.text,
        images: frame.images,
      })
    } catch (error) {
      sendFrameFailure(connection, {
        session: named,
        error,
        logged: 'observing a line failed',
        told: 'observing the line failed; see the server log',
      })
    }
  },
})
