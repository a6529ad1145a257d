/**
 * The scopes a turn recalls from with `memory.per_person`: the conversation's own, and the memory
 * of the person speaking and of every id linked to them, so what someone said in a group chat is
 * known when they speak in a live room.
 */
import { memoryScopeOf } from '../memory-scope-of.js'
import type { MemoryHit, MemoryRetriever, MemorySearchOptions, MemoryStore } from '../types.js'
import { findLinkedPeople } from './people-links.js'
import { personOfTurn } from './person-of-turn.js'
import { personScopeOf } from './person-scope-of.js'

export interface FindRecallScopesOptions {
  /** Reads the links; without `list` (a retriever that only searches), only the person's own id. */
  retriever: MemoryRetriever & Partial<Pick<MemoryStore, 'list'>>
  session: string
  character?: string
  speaker?: { id: string }
  /** The person id the caller named for the turn (see `TurnInput.person`); wins over the speaker. */
  person?: string
  /** The configured named clients (`server.clients`), whose speakers are `client:` people. */
  clientNames?: readonly string[]
}

export async function findRecallScopes(options: FindRecallScopesOptions): Promise<string[]> {
  const conversation = memoryScopeOf({
    session: options.session,
    ...(options.character !== undefined ? { character: options.character } : {}),
  })
  const person = personOfTurn(options)
  if (person === undefined) return [conversation]
  const { retriever, character } = options
  const list = retriever.list
  const people = list
    ? await findLinkedPeople({
        store: { list: list.bind(retriever), add: unsupported, delete: unsupported },
        character,
        person,
      })
    : [person]
  return [conversation, ...people.map((linked) => personScopeOf({ character, person: linked }))]
}

const unsupported = () => Promise.reject(new Error('recall only reads links'))

/**
 * One search per scope, merged best first (each scope ranks its own; a memory found twice counts
 * once). The store's ranking within a scope is unchanged.
 */
export async function searchScopes(
  retriever: MemoryRetriever,
  query: string,
  scopes: readonly string[],
  options: Omit<MemorySearchOptions, 'scope'>,
): Promise<MemoryHit[]> {
  if (scopes.length === 1) return retriever.search(query, { ...options, scope: scopes[0] as string })
  const found = await Promise.all(scopes.map((scope) => retriever.search(query, { ...options, scope })))
  const seen = new Set<string>()
  return found
    .flat()
    .sort((first, second) => second.score - first.score)
    .filter((hit) => {
      const key = `${hit.kind}:${hit.id}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    .slice(0, options.k)
}
