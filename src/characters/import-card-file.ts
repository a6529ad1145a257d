/** A card file of `characters_dir` (`.json` or `.png`) read as a character block by the card importer. */
import { importCharacterCard } from './cards/index.js'
import type { ImportCardFile } from './read-characters-dir.js'

export const importCardFile: ImportCardFile = (bytes, contentType) => {
  const { character } = importCharacterCard(bytes, contentType)
  return { character: character as Record<string, unknown> }
}
