/**
 * Where a turn's long-term memory goes: the speaker's own memory with `memory.per_person`, the
 * conversation's otherwise (`selectTurnMemoryTarget`). Remembering a turn and forgetting it again
 * (a regenerate, a turn the history no longer has) must agree on it, so both ask here.
 */
import type { TurnInput } from '../context/types.js'
import { memoryScopeOf } from '../memory/memory-scope-of.js'
import { selectTurnMemoryTarget, type TurnMemoryTarget } from '../memory/people/select-turn-memory-target.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineRuntime } from './engine-runtime.js'

export function memoryTargetOfTurn(runtime: EngineRuntime, input: TurnInput): TurnMemoryTarget {
  // The turn's person: its speaker, or the one person an audience batch is from.
  const person = input.speaker ?? input.audienceSpeaker
  return selectTurnMemoryTarget({
    session: input.session,
    ...(input.character !== undefined ? { character: input.character } : {}),
    ...(person ? { speaker: person } : {}),
    // A person the caller named (a named client's /v1 user) wins over the speaker.
    ...(input.person !== undefined ? { person: input.person } : {}),
    perPerson: runtime.config.memory.per_person,
    clientNames: runtime.config.server.clients.map((client) => client.name),
    history: conversationScopeOf(runtime, input.session),
  })
}

/**
 * Every scope a memory of this turn may be in: its target, and the conversation's (where it went
 * before `memory.per_person` was switched on).
 */
export function memoryScopesOfTurn(runtime: EngineRuntime, input: TurnInput): string[] {
  const conversation = memoryScopeOf(input)
  const target = memoryTargetOfTurn(runtime, input).scope
  return target === conversation ? [conversation] : [target, conversation]
}
