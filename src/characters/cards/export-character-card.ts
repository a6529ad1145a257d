/**
 * Exports a character as a Character Card V3: JSON, or a PNG whose picture is the avatar (when it
 * is a PNG data URI; otherwise a plain default picture) carrying the card in a `ccv3` chunk and, for
 * older readers, the V2 form (converted by the card library, which also drops V3-only content
 * decorators) in a `chara` chunk.
 */
import type { CharacterCardV3 } from '@risuai/ccardlib'
import type { CharacterConfig } from '../../config/schema.js'
import { BadRequestError } from '../../shared/errors.js'
import { cardDataSchema } from './card-schema.js'
import { convertCharacterToCard } from './convert-character-to-card.js'
import { createDefaultCardImage } from './create-default-card-image.js'
import { loadCardLibrary } from './load-card-library.js'
import { readPngChunks } from './read-png-chunks.js'
import { writeCardPng } from './write-card-png.js'

export interface ExportCharacterCardOptions {
  format: 'json' | 'png'
}

const pngDataUri = /^data:image\/png;base64,/i

/** The avatar's PNG bytes, or undefined when the avatar is not a readable PNG data URI. */
function readAvatarPng(avatar: string): Uint8Array | undefined {
  if (!pngDataUri.test(avatar)) return undefined
  const bytes = new Uint8Array(Buffer.from(avatar.slice(avatar.indexOf(',') + 1), 'base64'))
  try {
    readPngChunks(bytes)
    return bytes
  } catch {
    return undefined
  }
}

/** The fields the character kept from its card must still have a card's types. */
function checkCard(card: CharacterCardV3): void {
  const parsed = cardDataSchema.safeParse(card.data)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new BadRequestError(
      `the character's card field ${issue.path.map(String).join('.')} cannot be exported: ${issue.message}`,
    )
  }
  if (loadCardLibrary().character.check(card) !== 'v3')
    throw new BadRequestError("the character's card fields do not make a Character Card V3")
}

export function exportCharacterCard(
  character: CharacterConfig,
  options: ExportCharacterCardOptions,
): Uint8Array {
  const card = convertCharacterToCard(character) as unknown as CharacterCardV3
  checkCard(card)
  const json = JSON.stringify(card)
  if (options.format === 'json') return new Uint8Array(Buffer.from(json, 'utf8'))
  const v2 = loadCardLibrary().character.convert(card, { from: 'v3', to: 'v2' })
  return writeCardPng({
    image: readAvatarPng(character.avatar) ?? createDefaultCardImage(),
    ccv3: json,
    chara: JSON.stringify(v2),
  })
}
