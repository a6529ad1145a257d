/**
 * Character cards: Character Card V1/V2/V3 as JSON or PNG (`chara` / `ccv3` text chunks) in, a
 * `character` block out, and back. The card library (`@risuai/ccardlib`) converts between spec
 * versions and checks what is exported; the PNG chunk libraries read and write the picture.
 */

export { createCharacterSlug } from './create-character-slug.js'
export { type ExportCharacterCardOptions, exportCharacterCard } from './export-character-card.js'
export {
  type CardContentType,
  type ImportCharacterCardResult,
  importCharacterCard,
  maxCardBytes,
} from './import-character-card.js'
