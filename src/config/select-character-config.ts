/**
 * One config per character: the server's config with `character` replaced by the chosen one and its
 * own `pipeline.processors` entries put over the top-level ones (an entry replaces the entry of the
 * same id whole, as `pipeline.processors` does over `llm.processors`). Everything else — model,
 * stores, conversation rules — is the server's.
 */
import { BadRequestError } from '../shared/errors.js'
import { characterIdOf } from './character-id.js'
import type { CharacterConfig, CharpipeConfig } from './schema.js'

/** The ids a client may choose, the default character's first. */
export function listCharacterIds(config: CharpipeConfig): string[] {
  return [characterIdOf(config.character), ...Object.keys(config.characters)]
}

/** The character block of an id (the default's when the id is empty); undefined when unknown. */
export function findCharacter(config: CharpipeConfig, id: string | undefined): CharacterConfig | undefined {
  if (!id || id === characterIdOf(config.character)) return config.character
  if (!Object.hasOwn(config.characters, id)) return undefined
  const character = config.characters[id]!
  // The key is the character's id: its history and memories are kept under it.
  return character.id ? character : { ...character, id }
}

/** Whether an id names the default character (`character`). */
export function isDefaultCharacter(config: CharpipeConfig, id: string | undefined): boolean {
  return !id || id === characterIdOf(config.character)
}

/** The bad_request for an id no character has, listing the ones there are. */
export function createUnknownCharacterError(config: CharpipeConfig, id: string): BadRequestError {
  const known = listCharacterIds(config)
    .map((each) => `"${each}"`)
    .join(', ')
  return new BadRequestError(`character "${id}" is not configured; known characters: ${known}`)
}

/** The config a turn with this character runs on; throws bad_request for an unknown id. */
export function selectCharacterConfig(config: CharpipeConfig, id: string | undefined): CharpipeConfig {
  const character = findCharacter(config, id)
  if (!character) throw createUnknownCharacterError(config, id!)
  const own = character.pipeline?.processors
  if (character === config.character && !own) return config
  return {
    ...config,
    character,
    pipeline: own
      ? { ...config.pipeline, processors: { ...config.pipeline.processors, ...own } }
      : config.pipeline,
  }
}
