/**
 * Links between person ids of one character: one person seen on several sources (a QQ user and a
 * Bilibili viewer). Each link is one pair, kept as a memory record under the character's links
 * scope, so it persists wherever memories do; people are linked when a chain of pairs joins them,
 * and removing a pair splits them again. A person's facts stay under their own id, so neither
 * linking nor unlinking moves or loses one.
 */
import type { MemoryRecord, MemoryStore } from '../types.js'
import { listAllMemories } from './list-all-memories.js'
import { peopleLinksScopeOf } from './person-scope-of.js'

export interface PeopleLinkOptions {
  store: Pick<MemoryStore, 'list' | 'add' | 'delete'>
  /** The character's stable id; undefined for the default character. */
  character: string | undefined
}

interface LinkRecord {
  id: string
  people: [string, string]
}

function readLink(record: MemoryRecord): LinkRecord | undefined {
  const pair = record.metadata?.link
  if (!Array.isArray(pair) || pair.length !== 2) return undefined
  const [first, second] = pair
  if (typeof first !== 'string' || typeof second !== 'string') return undefined
  return { id: record.id, people: [first, second] }
}

async function listLinks(options: PeopleLinkOptions): Promise<LinkRecord[]> {
  const records = await listAllMemories(options.store, { scope: peopleLinksScopeOf(options.character) })
  return records.map(readLink).filter((link) => link !== undefined)
}

/** Every id joined to each person by a chain of links, the person first (a person alone: just them). */
export async function findLinkedPeople(options: PeopleLinkOptions & { person: string }): Promise<string[]> {
  return findJoined(await listLinks(options), options.person)
}

function findJoined(links: readonly LinkRecord[], person: string): string[] {
  const found = [person]
  const seen = new Set(found)
  for (let index = 0; index < found.length; index++) {
    for (const { people } of links) {
      const [first, second] = people
      const other = first === found[index] ? second : second === found[index] ? first : undefined
      if (other !== undefined && !seen.has(other)) {
        seen.add(other)
        found.push(other)
      }
    }
  }
  return found
}

/** Every person id named in a link, with the ids joined to it (itself left out). */
export async function listLinkedGroups(options: PeopleLinkOptions): Promise<Map<string, string[]>> {
  const links = await listLinks(options)
  const groups = new Map<string, string[]>()
  for (const { people } of links) {
    for (const person of people)
      if (!groups.has(person)) groups.set(person, findJoined(links, person).slice(1))
  }
  return groups
}

/** Links `person` with each of `others` (a pair already linked is not stored twice). */
export async function linkPeople(options: PeopleLinkOptions & { person: string; others: readonly string[] }) {
  const links = await listLinks(options)
  const has = (first: string, second: string) =>
    links.some(({ people }) => people.includes(first) && people.includes(second) && first !== second)
  for (const other of new Set(options.others)) {
    if (other === options.person || has(options.person, other)) continue
    const record = await options.store.add({
      scope: peopleLinksScopeOf(options.character),
      text: `${options.person} = ${other}`,
      metadata: { link: [options.person, other] },
    })
    links.push({ id: record.id, people: [options.person, other] })
  }
  return findJoined(links, options.person)
}

/** Removes the pair linking the two; false when they were not linked directly. */
export async function unlinkPeople(options: PeopleLinkOptions & { person: string; other: string }) {
  const links = await listLinks(options)
  let removed = false
  for (const { id, people } of links) {
    if (people.includes(options.person) && people.includes(options.other) && options.person !== options.other)
      removed = (await options.store.delete(id)) || removed
  }
  return removed
}

/** Removes every pair naming the person (when the person is erased); returns how many. */
export async function forgetPersonLinks(options: PeopleLinkOptions & { person: string }): Promise<number> {
  let removed = 0
  for (const { id, people } of await listLinks(options))
    if (people.includes(options.person) && (await options.store.delete(id))) removed++
  return removed
}
