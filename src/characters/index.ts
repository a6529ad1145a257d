/**
 * `charpipe/characters`: Character Cards (V1/V2/V3, JSON or PNG) to a `character` block and back,
 * for programs that keep characters their own way. The server's import and export routes, the
 * characters folder and `charpipe card import` use the same two functions.
 */

export type { CharacterInput } from './cards/convert-card-to-character.js'
export {
  type CardContentType,
  type ExportCharacterCardOptions,
  exportCharacterCard,
  type ImportCharacterCardResult,
  importCharacterCard,
} from './cards/index.js'
