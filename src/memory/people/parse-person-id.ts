/**
 * Person ids: who spoke to a character, named the same way wherever they speak, so what is known
 * about them can follow them from a group chat to a live room. `onebot:<name>:<user_id>`,
 * `twitch:<name>:<login>`, `bilibili:<name>:<uid>` (a connector's name and the platform's id),
 * `speaker:<id>` (a `speaker` given on a WebSocket or HTTP input), `client:<client name>:<id>` (a
 * named client's speaker) and `session:<session>` (a conversation nobody named a speaker in).
 */

export type PersonSource = 'onebot' | 'twitch' | 'bilibili' | 'speaker' | 'client' | 'session'

export interface PersonId {
  source: PersonSource
  /** The connector's or client's name; absent for `speaker` and `session`. */
  name?: string
  /** The platform's user id, the speaker id or the session id. */
  id: string
}

export type ParsePersonIdResult = { ok: true; person: PersonId } | { ok: false; problem: string }

/** Longest person id accepted: a session id or speaker id with its prefix fits easily. */
export const maxPersonIdLength = 512

/** Connector and client names, as their configuration allows them. */
const namePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/

const namedSources: ReadonlySet<PersonSource> = new Set(['onebot', 'twitch', 'bilibili', 'client'])
const sources: readonly PersonSource[] = ['onebot', 'twitch', 'bilibili', 'speaker', 'client', 'session']

// Control characters (C0, DEL, C1) and the line and paragraph separators would let an id break a
// log line or a prompt line.
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

function isPersonSource(value: string): value is PersonSource {
  return (sources as readonly string[]).includes(value)
}

/** Reads a person id, or says what is wrong with it (for a 400 that names the problem). */
export function parsePersonId(text: string): ParsePersonIdResult {
  if (text.length === 0) return { ok: false, problem: 'the person id is empty' }
  if (text.length > maxPersonIdLength)
    return { ok: false, problem: `the person id is longer than ${maxPersonIdLength} characters` }
  if (controlCharacters.test(text)) return { ok: false, problem: 'the person id holds a control character' }
  const separator = text.indexOf(':')
  const source = separator < 0 ? text : text.slice(0, separator)
  if (!isPersonSource(source))
    return {
      ok: false,
      problem: `the person id must start with one of ${sources.map((known) => `${known}:`).join(', ')}`,
    }
  const rest = separator < 0 ? '' : text.slice(separator + 1)
  if (!namedSources.has(source)) {
    if (rest === '') return { ok: false, problem: `the person id "${source}:" names no ${source}` }
    return { ok: true, person: { source, id: rest } }
  }
  const nameEnd = rest.indexOf(':')
  const name = nameEnd < 0 ? rest : rest.slice(0, nameEnd)
  if (!namePattern.test(name))
    return {
      ok: false,
      problem: `the person id "${source}:<name>:<id>" needs a name of lowercase letters, digits, - and _`,
    }
  const id = nameEnd < 0 ? '' : rest.slice(nameEnd + 1)
  if (id === '') return { ok: false, problem: `the person id "${source}:${name}:" names no user` }
  return { ok: true, person: { source, name, id } }
}

export function formatPersonId(person: PersonId): string {
  return person.name === undefined
    ? `${person.source}:${person.id}`
    : `${person.source}:${person.name}:${person.id}`
}
