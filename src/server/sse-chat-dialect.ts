/**
 * The `/api/chat` dialect: each turn event as one SSE message named after its type, its data the
 * event as the client named its session; a turn that failed ends with an `error` message.
 */
import type { CharpipeEvent } from '../shared/events.js'
import type { StreamMessage } from './bound-stream-writes.js'
import { renameEventSession } from './create-session-owners.js'
import { createTurnEnd, type TurnDialect, turnFailedFrame } from './turn-dialect.js'

export function createSseChatDialect(named: string): TurnDialect<StreamMessage> {
  const end = createTurnEnd()
  return {
    push(event: CharpipeEvent) {
      if (end.isOver(event)) return []
      return [{ event: event.type, data: JSON.stringify(renameEventSession(event, named)) }]
    },
    finish: ({ threw }) => (threw ? [{ event: 'error', data: JSON.stringify(turnFailedFrame) }] : []),
  }
}
