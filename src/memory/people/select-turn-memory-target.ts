/**
 * Where a turn's memory goes and what it says of its speaker. With `memory.per_person` the turn is
 * kept in its person's own scope (see `personScopeOf`), to be recalled wherever they speak;
 * otherwise in the conversation's. Either way the memory's metadata names the person and the stored
 * history the words are in, so a person can be erased wherever their words were kept.
 */
import { memoryScopeOf } from '../memory-scope-of.js'
import type { ConversationScope } from '../types.js'
import type { PersonMemoryMetadata } from './person-memory-metadata.js'
import { personOfTurn } from './person-of-turn.js'
import { personScopeOf } from './person-scope-of.js'

export interface SelectTurnMemoryTargetOptions {
  session: string
  /** The character's stable id; undefined for the default character. */
  character?: string
  speaker?: { id: string; name?: string }
  perPerson: boolean
  /** The person id the caller named for the turn (see `TurnInput.person`); wins over the speaker. */
  person?: string
  /** The configured named clients (`server.clients`), whose speakers are `client:` people. */
  clientNames?: readonly string[]
  /** Where the turn's history is stored. */
  history: ConversationScope
}

export interface TurnMemoryTarget {
  scope: string
  /** Absent when the turn has no valid person id. */
  metadata?: PersonMemoryMetadata
}

export function selectTurnMemoryTarget(options: SelectTurnMemoryTargetOptions): TurnMemoryTarget {
  const conversation = memoryScopeOf({
    session: options.session,
    ...(options.character !== undefined ? { character: options.character } : {}),
  })
  const person = personOfTurn(options)
  if (person === undefined) return { scope: conversation }
  const name = options.speaker?.name
  const metadata: PersonMemoryMetadata = {
    person,
    ...(name ? { person_name: name } : {}),
    memory_character: options.character ?? '',
    history_character: options.history.character,
    history_session: options.history.session,
  }
  const scope = options.perPerson ? personScopeOf({ character: options.character, person }) : conversation
  return { scope, metadata }
}
