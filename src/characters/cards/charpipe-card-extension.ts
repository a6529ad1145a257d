/**
 * The character block's own fields that no card field holds (language, reply format, emotions, the
 * user's name), written under the card's `extensions.charpipe` — the place the spec gives applications for
 * their own data — so a character exported from charpipe comes back the same. Only these harmless
 * presentation fields travel this way: a card never brings processor settings beyond its prompts.
 * Fields left at their defaults are not written.
 */
import { type CharacterConfig, characterSchema } from '../../config/schema.js'
import { BadRequestError } from '../../shared/errors.js'

export const charpipeExtensionKey = 'charpipe'

const fields = [
  'language',
  'user_name',
  'reply_format',
  'default_emotion',
  'emotions',
  'emotion_aliases',
  'inline_emotion_tags',
  'user_emotion_map',
] as const

type CarriedField = (typeof fields)[number]
export type CharpipeExtension = Partial<Pick<CharacterConfig, CarriedField>>

let defaults: CharacterConfig | undefined

export function writeCharpipeExtension(character: CharacterConfig): CharpipeExtension {
  defaults ??= characterSchema.parse({})
  const extension: Record<string, unknown> = {}
  for (const field of fields) {
    if (JSON.stringify(character[field]) !== JSON.stringify(defaults[field]))
      extension[field] = character[field]
  }
  return extension as CharpipeExtension
}

/** The carried fields of a card's `extensions.charpipe`, checked; other keys in it are ignored. */
export function readCharpipeExtension(value: unknown): CharpipeExtension {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value))
    throw new BadRequestError('invalid character card: data.extensions.charpipe: must be an object')
  const extension: Record<string, unknown> = {}
  for (const field of fields) {
    const given = (value as Record<string, unknown>)[field]
    if (given === undefined) continue
    const parsed = characterSchema.shape[field].safeParse(given)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      const path = [field, ...issue.path.map(String)].join('.')
      throw new BadRequestError(`invalid character card: data.extensions.charpipe.${path}: ${issue.message}`)
    }
    extension[field] = given
  }
  return extension as CharpipeExtension
}
