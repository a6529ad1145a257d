/**
 * Character cards: Character Card V1/V2/V3 as JSON or PNG (`chara` / `ccv3` text chunks) in, a
 * `character` block out, and back. The card library (`@risuai/ccardlib`) converts between spec
 * versions, reads V3 decorators and checks what is exported. PNG chunks are read and written here:
 * only the card's text chunks are touched, so a picture of several MB costs a copy, not a decode.
 */

export { type ExportCharacterCardOptions, exportCharacterCard } from './export-character-card.js'
export {
  type CardContentType,
  type ImportCharacterCardResult,
  importCharacterCard,
} from './import-character-card.js'
