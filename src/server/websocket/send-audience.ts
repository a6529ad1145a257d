/**
 * `audience`: chat messages offered to the session's selector, as the admission let them through.
 * Nothing is sent back: the drops reach followers (this connection too) as `audience_dropped`.
 */
import { defineFrameHandler } from './frame-handler.js'

export const sendAudience = defineFrameHandler('audience', {
  doors: ['ws_audience'],
  readMessages: (frame) => frame.messages,
  handle({ connection, frame, named, entered }) {
    connection.audience.send({ named, entered, frame })
  },
})
