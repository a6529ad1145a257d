/**
 * Which character an input or a call speaks to, and that character's runtime and history scope.
 * Every entry point (turns, early transcripts, preview, history, open) settles the character the same way:
 * an unknown id is refused before anything runs, and the default character however it is named
 * counts as no character at all.
 */
import {
  createUnknownCharacterError,
  findCharacter,
  isDefaultCharacter,
} from '../config/select-character-config.js'
import { conversationScopeOf } from './conversation-scope-of.js'
import type { EngineContext } from './engine-context.js'
import type { EngineRuntime } from './engine-runtime.js'
import { selectCharacterRuntime } from './select-character-runtime.js'

/** The runtime of a character on `runtime` (throws bad_request naming an unknown id). */
export function characterRuntimeOf(
  context: EngineContext,
  runtime: EngineRuntime,
  character: string | undefined,
) {
  return selectCharacterRuntime(runtime, character, { parts: context.parts, logger: context.logger })
}

/**
 * The character of an input, checked now (an unknown id is refused before anything runs): its id
 * when it is one of `characters`, nothing for the default character however it was named.
 */
export function resolveCharacter<T extends { character?: string }>(context: EngineContext, input: T): T {
  const chosen = input.character
  if (isDefaultCharacter(context.current.config, chosen)) delete input.character
  else if (!findCharacter(context.current.config, chosen))
    throw createUnknownCharacterError(context.current.config, chosen!)
  return input
}

/** Where a session's history with a character is kept. */
export function scopeOf(context: EngineContext, session: string, character: string | undefined) {
  return conversationScopeOf(characterRuntimeOf(context, context.current, character), session)
}
