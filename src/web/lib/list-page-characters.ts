/**
 * The characters the page offers, read from the loaded config: the default character (`character`,
 * its id the `id` field or its name) first, then each entry of `characters` by its key.
 */
import type { ConfigObject } from './use-config-draft.js'

export interface PageCharacter {
  id: string
  name: string
  avatar: string
  /** The default character: frames without `character` speak to it, and it is edited at `character`. */
  isDefault: boolean
  /** Where its block sits in the config: `character` or `characters.<id>`. */
  path: string
}

interface Block {
  id?: string
  name?: string
  avatar?: string
}

export function listPageCharacters(config: ConfigObject | undefined): PageCharacter[] {
  if (!config) return []
  const main = (config.character ?? {}) as Block
  const others = (config.characters ?? {}) as Record<string, Block>
  return [
    {
      id: main.id || main.name || '',
      name: main.name ?? '',
      avatar: main.avatar ?? '',
      isDefault: true,
      path: 'character',
    },
    ...Object.entries(others).map(([id, block]) => ({
      id,
      name: block.name ?? id,
      avatar: block.avatar ?? '',
      isDefault: false,
      path: `characters.${id}`,
    })),
  ]
}

/** The chosen character, or the default one when the choice is gone (deleted, renamed). */
export function findPageCharacter(characters: PageCharacter[], id: string): PageCharacter | undefined {
  return characters.find((character) => character.id === id) ?? characters[0]
}
