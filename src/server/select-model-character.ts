/**
 * `/v1/chat/completions` takes the character as `model`: a character's id (a key of `characters`,
 * or the default character's id) or its name, compared case-insensitively (`Seraphina`,
 * `seraphina`). An exact id wins over a name; a name two characters share is refused as ambiguous.
 * Without `characters` any model name means the one character, as before; with them, a name that is
 * no character's is refused naming the ones there are, so a front-end never talks to the wrong one.
 */
import { characterIdOf } from '../config/character-id.js'
import type { CharpipeConfig } from '../config/schema.js'
import { createUnknownCharacterError } from '../config/select-character-config.js'
import { BadRequestError } from '../shared/errors.js'

interface ModelCharacter {
  /** The id to pass to the engine; undefined for the default character. */
  engineId: string | undefined
  id: string
  name: string
}

/** Every character a model name may choose, the default first. */
export function listModelCharacters(config: CharpipeConfig): ModelCharacter[] {
  return [
    { engineId: undefined, id: characterIdOf(config.character), name: config.character.name },
    ...Object.entries(config.characters).map(([id, character]) => ({
      engineId: id,
      id,
      name: character.name,
    })),
  ]
}

/** The character id to pass to the engine; undefined for the default character. */
export function selectModelCharacter(config: CharpipeConfig, model: string | undefined): string | undefined {
  if (!model) return undefined
  const characters = listModelCharacters(config)
  const exact = characters.find((character) => character.id === model)
  if (exact) return exact.engineId
  const wanted = model.toLocaleLowerCase()
  const matches = characters.filter(
    (character) =>
      character.id.toLocaleLowerCase() === wanted || character.name.toLocaleLowerCase() === wanted,
  )
  const distinct = new Set(matches.map((character) => character.id))
  if (distinct.size === 1) return matches[0]!.engineId
  if (distinct.size > 1) {
    const ids = [...distinct].map((id) => `"${id}"`).join(', ')
    throw new BadRequestError(`model "${model}" names more than one character (${ids}); send the id`)
  }
  if (Object.keys(config.characters).length === 0) return undefined
  throw createUnknownCharacterError(config, model)
}
