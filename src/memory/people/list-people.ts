/**
 * A character's people: every person id with memories of its own or a link, with the names they
 * used, the ids they are linked to, how many memories they have and when they were last heard.
 */
import type { MemoryStore } from '../types.js'
import { listAllMemories } from './list-all-memories.js'
import { listLinkedGroups } from './people-links.js'
import { readPersonMemoryMetadata } from './person-memory-metadata.js'
import { peopleScopePrefixOf, readPersonScope } from './person-scope-of.js'

export interface PersonSummary {
  id: string
  names: string[]
  links: string[]
  memories: number
  /** Milliseconds since the epoch of their newest memory; undefined when they have none. */
  lastSeen: number | undefined
}

export interface ListPeopleOptions {
  store: Pick<MemoryStore, 'list' | 'add' | 'delete'>
  character: string | undefined
}

export async function listPeople(options: ListPeopleOptions): Promise<PersonSummary[]> {
  const records = await listAllMemories(options.store, {
    scopePrefix: peopleScopePrefixOf(options.character),
  })
  const groups = await listLinkedGroups(options)
  const people = new Map<string, PersonSummary & { nameSet: Set<string> }>()
  const personOf = (id: string) => {
    let person = people.get(id)
    if (!person) {
      person = {
        id,
        names: [],
        links: groups.get(id) ?? [],
        memories: 0,
        lastSeen: undefined,
        nameSet: new Set(),
      }
      people.set(id, person)
    }
    return person
  }
  for (const record of records) {
    const id = readPersonScope(record.scope, options.character)
    if (id === undefined) continue
    const person = personOf(id)
    person.memories++
    person.lastSeen = Math.max(person.lastSeen ?? record.time, record.time)
    const name = readPersonMemoryMetadata(record.metadata)?.person_name
    if (name) person.nameSet.add(name)
  }
  for (const id of groups.keys()) personOf(id)
  return [...people.values()]
    .map(({ nameSet, ...person }) => ({ ...person, names: [...nameSet] }))
    .sort(
      (first, second) => (second.lastSeen ?? 0) - (first.lastSeen ?? 0) || first.id.localeCompare(second.id),
    )
}
