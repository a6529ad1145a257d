/**
 * The people of one character's memory, for the administration: list them, read, correct and
 * delete what is kept about one, link the ids one person has on different sources, and erase a
 * person. Person ids are checked first; a bad one is a `BadRequestError` naming what is wrong.
 */
import { BadRequestError } from '../../shared/errors.js'
import type { HistoryStore, MemoryRecord, MemoryStore } from '../types.js'
import { type ErasePersonResult, erasePerson } from './erase-person.js'
import { listAllMemories } from './list-all-memories.js'
import { listPeople, type PersonSummary } from './list-people.js'
import { parsePersonId } from './parse-person-id.js'
import { findLinkedPeople, linkPeople, unlinkPeople } from './people-links.js'
import { personScopeOf } from './person-scope-of.js'

export interface PeopleDirectoryOptions {
  memoryStore: MemoryStore
  historyStore?: HistoryStore
  /** The character's stable id; undefined for the default character. */
  character: string | undefined
}

export interface PeopleDirectory {
  list(): Promise<PersonSummary[]>
  /** The person's own memories, newest first; undefined when the person is unknown. */
  memories(person: string): Promise<MemoryRecord[] | undefined>
  /** undefined when the person is unknown or the memory is not theirs. */
  updateMemory(person: string, memory: string, text: string): Promise<MemoryRecord | undefined>
  deleteMemory(person: string, memory: string): Promise<boolean>
  /** undefined when nothing was known about the person. */
  erase(person: string, options: { history: boolean }): Promise<ErasePersonResult | undefined>
  /** Every id now joined to the person, the person first. */
  link(person: string, others: readonly string[]): Promise<string[]>
  unlink(person: string, other: string): Promise<boolean>
  /** The ids joined to the person (itself left out). */
  links(person: string): Promise<string[]>
}

/** The id as given, when it is a person id; otherwise a 400 naming the problem. */
export function checkPersonId(person: string, field = 'person'): string {
  const parsed = parsePersonId(person)
  if (!parsed.ok) throw new BadRequestError(`${field}: ${parsed.problem}`)
  return person
}

export function createPeopleDirectory(options: PeopleDirectoryOptions): PeopleDirectory {
  const { memoryStore: store, character } = options
  const ownMemories = (person: string) =>
    listAllMemories(store, { scope: personScopeOf({ character, person: checkPersonId(person) }) })
  const links = async (person: string) =>
    (await findLinkedPeople({ store, character, person: checkPersonId(person) })).slice(1)
  const findTheirs = async (person: string, memory: string) => {
    const record = await store.get(memory)
    return record?.scope === personScopeOf({ character, person: checkPersonId(person) }) ? record : undefined
  }
  return {
    list: () => listPeople({ store, character }),
    async memories(person) {
      const memories = await ownMemories(person)
      if (memories.length === 0 && (await links(person)).length === 0) return undefined
      return memories
    },
    async updateMemory(person, memory, text) {
      if (!(await findTheirs(person, memory))) return undefined
      return store.update(memory, { text })
    },
    async deleteMemory(person, memory) {
      if (!(await findTheirs(person, memory))) return false
      return store.delete(memory)
    },
    async erase(person, eraseOptions) {
      checkPersonId(person)
      if (eraseOptions.history && options.historyStore && !options.historyStore.redactTurn)
        throw new BadRequestError(
          'history=true: this history store cannot replace stored words (it has no redactTurn)',
        )
      const result = await erasePerson({
        memoryStore: store,
        ...(options.historyStore ? { historyStore: options.historyStore } : {}),
        character,
        person,
        history: eraseOptions.history,
      })
      return result.removed === 0 && result.links === 0 ? undefined : result
    },
    link(person, others) {
      checkPersonId(person)
      for (const [index, other] of others.entries()) checkPersonId(other, `ids[${index}]`)
      return linkPeople({ store, character, person, others })
    },
    unlink(person, other) {
      return unlinkPeople({
        store,
        character,
        person: checkPersonId(person),
        other: checkPersonId(other, 'other'),
      })
    },
    links,
  }
}
