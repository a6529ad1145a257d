/**
 * `open`: the session becomes live for the connection (it follows it). Always answered, so a client
 * knows when to show the session: `opened`, with the greeting when one was stored.
 */
import { defineFrameHandler } from './frame-handler.js'
import { sendFrameFailure } from './send-frame-failure.js'

export const openSession = defineFrameHandler('open', {
  doors: ['ws_open'],
  needsFollow: true,
  async handle({ connection, frame, named, entered }) {
    try {
      const { greeting } = await connection.charpipe.sessions.open({
        session: entered.session,
        ...(frame.character ? { character: frame.character } : {}),
      })
      connection.send({
        type: 'opened',
        session: named,
        ...(frame.character ? { character: frame.character } : {}),
        greeting: greeting
          ? { text: greeting.content, emotion: greeting.emotion, turn: greeting.turn }
          : null,
      })
    } catch (error) {
      sendFrameFailure(connection, {
        session: named,
        error,
        logged: 'opening a session failed',
        told: 'opening the session failed; see the server log',
      })
    }
  },
})
