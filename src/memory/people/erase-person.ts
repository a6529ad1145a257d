/**
 * Erasing a person for one character: their own memories, every memory elsewhere taken from their
 * words (a conversation's memories keep who spoke in their metadata), the links naming them, and,
 * when asked, their words in the stored histories, replaced by a marker (the replies stay, so a
 * conversation still reads in order). Their words are found through the turns remembered from
 * them.
 */
import type { HistoryStore, MemoryRecord, MemoryStore } from '../types.js'
import { listAllMemories } from './list-all-memories.js'
import { forgetPersonLinks } from './people-links.js'
import { readPersonMemoryMetadata } from './person-memory-metadata.js'
import { personScopeOf } from './person-scope-of.js'

/** What replaces a person's erased words in a stored history. */
export const erasedWordsMarker = '[erased]'

export interface ErasePersonOptions {
  memoryStore: Pick<MemoryStore, 'list' | 'add' | 'delete' | 'deleteAll'>
  historyStore?: Pick<HistoryStore, 'redactTurn'>
  character: string | undefined
  person: string
  /** Replace the person's words in the stored histories too. */
  history: boolean
}

export interface ErasePersonResult {
  /** Memories removed, plus history messages replaced with the marker. */
  removed: number
  /** Links naming the person that were removed. */
  links: number
}

function isTheirs(record: MemoryRecord, options: ErasePersonOptions): boolean {
  const metadata = readPersonMemoryMetadata(record.metadata)
  return metadata?.person === options.person && metadata.memory_character === (options.character ?? '')
}

export async function erasePerson(options: ErasePersonOptions): Promise<ErasePersonResult> {
  const { memoryStore, character, person } = options
  const scope = personScopeOf({ character, person })
  const own = await listAllMemories(memoryStore, { scope })
  // Lines of theirs kept in conversations (memory.per_person off, or before it was on).
  const elsewhere = (await listAllMemories(memoryStore, {})).filter(
    (record) => record.scope !== scope && isTheirs(record, options),
  )
  let removed = 0
  if (options.history) removed += await redactTheirTurns([...own, ...elsewhere], options)
  removed += await memoryStore.deleteAll(scope)
  for (const record of elsewhere) if (await memoryStore.delete(record.id)) removed++
  const links = await forgetPersonLinks({ store: memoryStore, character, person })
  return { removed, links }
}

async function redactTheirTurns(
  records: readonly MemoryRecord[],
  options: ErasePersonOptions,
): Promise<number> {
  const redactTurn = options.historyStore?.redactTurn
  if (!redactTurn) return 0
  const turns = new Map<string, { character: string; session: string; turn: string }>()
  for (const record of records) {
    const metadata = readPersonMemoryMetadata(record.metadata)
    if (!metadata || record.sourceTurn === undefined || metadata.history_session === '') continue
    const key = JSON.stringify([metadata.history_character, metadata.history_session, record.sourceTurn])
    turns.set(key, {
      character: metadata.history_character,
      session: metadata.history_session,
      turn: record.sourceTurn,
    })
  }
  let replaced = 0
  for (const { turn, ...scope } of turns.values())
    replaced += await redactTurn.call(options.historyStore, scope, turn, erasedWordsMarker)
  return replaced
}
