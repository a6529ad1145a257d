/**
 * The person a `/v1` request speaks as (PROTOCOL.md "People"): a named client's (`server.clients`)
 * end user, `client:<client name>:<id>`, the id taken from the body's `user` field, else from
 * `safety_identifier` (its successor, and the only end-user id of the Open Responses API). Only a
 * named client's token vouches for that name. A request with the admin token, `server.token` or no
 * token names no person by `user` (it still names the session): a keyless caller may be a web page
 * the user happens to visit, and speaking as someone else's person would let it read back what is
 * remembered of them. `prompt_cache_key` names a cache bucket several people may share: no person.
 */
import { formatPersonId } from '../../memory/people/parse-person-id.js'

export interface ReadClientPersonOptions {
  /** The named client whose token the request carried; undefined for every other caller. */
  clientName: string | undefined
  /** The body's `user` field (already checked by the request schema). */
  user: string | undefined
  /** The body's `safety_identifier` field (already checked by the request schema). */
  safetyIdentifier?: string | null | undefined
}

/** The request's person id, or undefined when the request names none it may name. */
export function readClientPerson(options: ReadClientPersonOptions): string | undefined {
  const { clientName } = options
  const id = options.user ?? options.safetyIdentifier ?? undefined
  if (clientName === undefined || id === undefined) return undefined
  return formatPersonId({ source: 'client', name: clientName, id })
}
