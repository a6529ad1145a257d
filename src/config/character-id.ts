/**
 * The key a character's history and memory are stored under. `character.id` when set; otherwise
 * the name, which is what every store has used so far, so existing conversations stay where they
 * are. A rename through the admin API pins the id to the old name first (see
 * `pinCharacterIdOnRename`), so renaming a character never loses its conversations.
 */
import type { CharacterConfig } from './schema.js'

export function characterIdOf(character: Pick<CharacterConfig, 'id' | 'name'>): string {
  return character.id || character.name
}

export interface PinCharacterIdOptions {
  /** The character in force before the change. */
  running: Pick<CharacterConfig, 'id' | 'name'>
  /** The character the change would put in force. */
  next: Pick<CharacterConfig, 'id' | 'name'>
}

/**
 * The id to write with a change that renames a character whose id was its name: the old name.
 * Undefined when nothing needs pinning (no rename, or an id is already set on either side).
 */
export function pinCharacterIdOnRename({ running, next }: PinCharacterIdOptions): string | undefined {
  if (running.id || next.id || running.name === next.name) return undefined
  return running.name
}
