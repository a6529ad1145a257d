/** `activity`: voice activity in the session (the selector waits while someone speaks). */
import { defineFrameHandler } from './frame-handler.js'

export const reportActivity = defineFrameHandler('activity', {
  doors: ['ws_activity'],
  handle({ connection, frame, named, entered }) {
    connection.audience.reportActivity({ named, entered, speaking: frame.speaking })
  },
})
