/**
 * The person a turn's words are from. A connector's conversations are named after it
 * (`onebot:<name>:group:<id>`, `onebot:<name>:private:<user>`, `bilibili:<name>:<room>`,
 * `twitch:<name>:<channel>`), so its speakers are that connector's users; a speaker anywhere else
 * was named by a client (`speaker:<id>`), and a turn without one is its conversation's
 * (`session:<session>`).
 */
import { formatPersonId, parsePersonId } from './parse-person-id.js'

export interface PersonOfTurnOptions {
  /** The engine's session id (a named client's sessions carry its namespace). */
  session: string
  speaker?: { id: string }
}

const connectorSession = /^(onebot|twitch|bilibili):([a-z0-9][a-z0-9_-]{0,63}):/

/** The turn's person id, or undefined when it would not be a valid one (too long, say). */
export function personOfTurn(options: PersonOfTurnOptions): string | undefined {
  const speaker = options.speaker?.id
  const connector = connectorSession.exec(options.session)
  let person: string
  if (speaker === undefined || speaker === '')
    person = formatPersonId({ source: 'session', id: options.session })
  else if (connector)
    person = formatPersonId({
      source: connector[1] as 'onebot' | 'twitch' | 'bilibili',
      name: connector[2] as string,
      id: speaker,
    })
  else person = formatPersonId({ source: 'speaker', id: speaker })
  return parsePersonId(person).ok ? person : undefined
}
