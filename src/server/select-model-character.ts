/**
 * `/v1/chat/completions` takes the character as `model`: an id of `characters`, or the default
 * character's model name (its name, as `GET /v1/models` has always listed it) or id. Without
 * `characters` any model name means the one character, as before; with them, a name that is no
 * character's is refused naming the ones there are, so a front-end never talks to the wrong one.
 */
import { characterIdOf } from '../config/character-id.js'
import type { CharpipeConfig } from '../config/schema.js'
import { createUnknownCharacterError } from '../config/select-character-config.js'

/** The character id to pass to the engine; undefined for the default character. */
export function selectModelCharacter(config: CharpipeConfig, model: string | undefined): string | undefined {
  if (!model || model === config.character.name || model === characterIdOf(config.character)) return undefined
  if (Object.hasOwn(config.characters, model)) return model
  if (Object.keys(config.characters).length === 0) return undefined
  throw createUnknownCharacterError(config, model)
}
