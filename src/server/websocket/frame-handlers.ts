/**
 * The WebSocket's frame kinds, each registered with its doors and its handler: the table the
 * dispatcher (dispatch-frame.ts) reads. A frame kind of request-schemas.ts without an entry here
 * does not compile; frame-handlers.test.ts checks that every `ws_*` door of the admission has a
 * kind here (or is the follow's door) and every kind's doors are WebSocket doors.
 */
import type { FrameHandler, FrameType } from './frame-handler.js'
import { interruptTurn } from './interrupt-turn.js'
import { observeLine } from './observe-line.js'
import { openSession } from './open-session.js'
import { reportActivity } from './report-activity.js'
import { sayWords } from './say-words.js'
import { sendAudience } from './send-audience.js'
import { takeUserInput } from './take-user-input.js'
import { tellEvent } from './tell-event.js'

export type FrameHandlers = { readonly [Type in FrameType]: FrameHandler<Type> }

export const frameHandlers: FrameHandlers = {
  user_input: takeUserInput,
  observe: observeLine,
  interrupt: interruptTurn,
  open: openSession,
  audience: sendAudience,
  activity: reportActivity,
  say: sayWords,
  event: tellEvent,
}
