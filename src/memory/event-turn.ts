/**
 * The turn id of an event given to a session (`sessions.event`): the event's id with a prefix, so
 * the history tells an event from an idle turn's instruction (both stored with the role `event`)
 * without a column of its own in any store.
 */

const eventTurnPrefix = 'event-'

export function eventTurnOf(id: string): string {
  return `${eventTurnPrefix}${id}`
}

export function isEventTurn(turn: string | undefined): boolean {
  return turn?.startsWith(eventTurnPrefix) === true
}
