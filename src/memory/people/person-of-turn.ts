/**
 * The person a turn's words are from. A connector's conversations are named after it
 * (`onebot:<name>:group:<id>`, `onebot:<name>:private:<user>`, `bilibili:<name>:<room>`,
 * `twitch:<name>:<channel>`), so its speakers are that connector's users; a speaker in a named
 * client's sessions is that client's (`client:<name>:<id>`); a speaker anywhere else was named by a
 * client (`speaker:<id>`), and a turn without one is its conversation's (`session:<session>`).
 * A person the caller names outright (a named client's `/v1` `user`) is the turn's, whatever else.
 */
import { createHash } from 'node:crypto'
import { formatPersonId, parsePersonId } from './parse-person-id.js'

export interface PersonOfTurnOptions {
  /** The engine's session id (a named client's sessions carry its namespace). */
  session: string
  speaker?: { id: string }
  /**
   * The person id the caller names for the turn (the server names a named client's `/v1` `user`
   * so): it wins over what the session and speaker say.
   */
  person?: string
  /** The configured named clients (`server.clients`): a speaker in one's sessions is `client:`. */
  clientNames?: readonly string[]
}

// A named client's sessions are `~<namespace>~<session>`, the namespace made from its key as the
// server makes it (src/server/create-session-owners.ts; a test holds the two together).
const clientNamespaces = new Map<string, string>()
function clientNamespaceOf(name: string): string {
  let namespace = clientNamespaces.get(name)
  if (namespace === undefined) {
    const key = `\u0000client:${name}`
    namespace = `~${createHash('sha256').update(key).digest('base64url').slice(0, 22)}~`
    if (clientNamespaces.size >= 10_000) clientNamespaces.clear()
    clientNamespaces.set(name, namespace)
  }
  return namespace
}

function findClientName(session: string, names: readonly string[] | undefined): string | undefined {
  if (!names || !/^~[\w-]{22}~/.test(session)) return undefined
  return names.find((name) => session.startsWith(clientNamespaceOf(name)))
}

const connectorSession = /^(onebot|twitch|bilibili):([a-z0-9][a-z0-9_-]{0,63}):/

/** The person id a turn's words are from, without checking it. */
function namePerson(options: PersonOfTurnOptions): string {
  if (options.person !== undefined) return options.person
  const speaker = options.speaker?.id
  if (speaker === undefined || speaker === '')
    return formatPersonId({ source: 'session', id: options.session })
  const client = findClientName(options.session, options.clientNames)
  if (client !== undefined) return formatPersonId({ source: 'client', name: client, id: speaker })
  const connector = connectorSession.exec(options.session)
  if (connector)
    return formatPersonId({
      source: connector[1] as 'onebot' | 'twitch' | 'bilibili',
      name: connector[2] as string,
      id: speaker,
    })
  return formatPersonId({ source: 'speaker', id: speaker })
}

/** The turn's person id, or undefined when it would not be a valid one (too long, say). */
export function personOfTurn(options: PersonOfTurnOptions): string | undefined {
  const person = namePerson(options)
  return parsePersonId(person).ok ? person : undefined
}
