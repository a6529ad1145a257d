/**
 * Imports a Character Card (V1, V2 or V3; JSON or a PNG carrying it) as a `character` block and the
 * id to keep it under. Reading and checking come first and nothing is kept from a card that fails:
 * every refusal is a `BadRequestError` that says what is wrong (bad PNG, no card chunk, bad base64,
 * bad JSON, an unknown spec, a missing name, a field of the wrong type, by its name, a lorebook
 * pattern that RE2 cannot run or that costs too much, by its entry and key).
 */

import { compileLorebookPatterns } from '../../config/patterns/compile-lorebook-patterns.js'
import { characterLimits } from '../../config/schema/character-limits.js'
import { characterSchema } from '../../config/schema.js'
import { BadRequestError } from '../../shared/errors.js'
import { describeForbiddenKey, findForbiddenKey } from '../../shared/find-forbidden-key.js'
import { isJsonNestedTooDeep, maxJsonDepth } from '../../shared/is-json-nested-too-deep.js'
import { type CharacterInput, convertCardToCharacter } from './convert-card-to-character.js'
import { createCharacterSlug } from './create-character-slug.js'
import { readCardObject } from './read-card-object.js'
import { readCardPng } from './read-card-png.js'

export type CardContentType = 'application/json' | 'image/png'

export interface ImportCharacterCardResult {
  /** A slug of the card's name: stable, and safe as a YAML key and a file name. */
  id: string
  character: CharacterInput
  /** The card's JSON text, as given (a PNG's card chunk decoded): what a characters folder keeps. */
  cardJson: string
  /** The picture of a PNG card, without its card chunks. */
  picture?: Uint8Array
}

/** The largest card accepted: a large avatar with its card is a few MB. */
const maxCardBytes = 20 * 1024 * 1024

function toBytes(input: Uint8Array | string | object): Uint8Array {
  if (input instanceof Uint8Array) return input
  if (typeof input === 'string') return Buffer.from(input, 'utf8')
  throw new BadRequestError('a PNG card must be given as bytes')
}

/**
 * A card nests a few levels (its book's entries, their extensions): one nested past `maxJsonDepth`
 * is refused before it is parsed, as what follows the parse recurses or grows with the depth (the
 * card kept as indented JSON grows with its square: 10,000 levels held the loop for a second).
 */
function refuseDeepNesting(text: string, where: string): void {
  if (isJsonNestedTooDeep(text))
    throw new BadRequestError(`${where} nests objects or arrays deeper than ${maxJsonDepth} levels`)
}

function parseJson(text: string, where: string): unknown {
  refuseDeepNesting(text, where)
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new BadRequestError(`${where} is not valid JSON: ${(error as Error).message}`, { cause: error })
  }
}

function readJsonInput(input: Uint8Array | string | object): unknown {
  if (typeof input === 'string') return parseJson(input, 'the card')
  if (!(input instanceof Uint8Array)) {
    // A library caller's object: its compact JSON is linear in its size, and tells its depth.
    let text: string
    try {
      text = JSON.stringify(input) ?? ''
    } catch (error) {
      // A cycle, or nesting deep enough to overflow the stack.
      throw new BadRequestError(`the card cannot be read as JSON: ${(error as Error).message}`, {
        cause: error,
      })
    }
    refuseDeepNesting(text, 'the card')
    return input
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(input)
  } catch (error) {
    throw new BadRequestError('the card is not UTF-8 text', { cause: error })
  }
  return parseJson(text, 'the card')
}

export function importCharacterCard(
  input: Uint8Array | string | object,
  contentType: CardContentType,
): ImportCharacterCardResult {
  const size = input instanceof Uint8Array || typeof input === 'string' ? input.length : 0
  if (size > maxCardBytes)
    throw new BadRequestError(`the card is ${size} bytes; the largest accepted is ${maxCardBytes}`)
  let card: unknown
  let avatar = ''
  let cardJson: string
  let picture: Uint8Array | undefined
  if (contentType === 'image/png') {
    const png = readCardPng(toBytes(input))
    if (png.image.length > characterLimits.avatarBytes)
      throw new BadRequestError(
        `the card's picture is ${png.image.length} bytes; the largest accepted is ${characterLimits.avatarBytes}`,
      )
    card = parseJson(png.json, `the ${png.chunk} chunk`)
    cardJson = png.json
    picture = png.image
    avatar = `data:image/png;base64,${Buffer.from(png.image).toString('base64')}`
  } else if (contentType === 'application/json') {
    card = readJsonInput(input)
    cardJson = JSON.stringify(card, null, 2)
  } else {
    throw new BadRequestError(
      `content type ${JSON.stringify(contentType)}: a card is application/json or image/png`,
    )
  }
  // As every JSON the server reads: a key that reaches a prototype is refused before the card is read.
  const forbidden = findForbiddenKey(card)
  if (forbidden !== undefined) throw new BadRequestError(`the card: ${describeForbiddenKey(forbidden)}`)
  const { data } = readCardObject(card)
  const character = convertCardToCharacter(data, avatar)
  const checked = characterSchema.safeParse(character)
  if (!checked.success) {
    const issue = checked.error.issues[0]!
    throw new BadRequestError(
      `the card does not make a valid character: ${issue.path.map(String).join('.')}: ${issue.message}`,
    )
  }
  // A card's patterns are a stranger's: each must run within its cost bound (see compileLorebookPatterns).
  const costly = compileLorebookPatterns(checked.data.lorebook).issues[0]
  if (costly) throw new BadRequestError(`the card does not make a valid character: ${costly.message}`)
  return { id: createCharacterSlug(data.name), character, cardJson, ...(picture ? { picture } : {}) }
}
