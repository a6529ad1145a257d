/**
 * What a character card must look like for charpipe to read it: the fields of Character Card V1, V2
 * and V3 it uses or keeps, with their types and sizes. Lenient where real cards are (a missing
 * optional field, `null` for "none", extra fields kept), strict on types and sizes, so a wrong type
 * or an oversized field is refused with the field's name and its limit instead of turning into a
 * broken character. Lists are counted before their items are read: a card with 150,000 lorebook
 * entries is refused without looking at one.
 */
import * as z from 'zod'
import { characterLimits as limits } from '../../config/schema/character-limits.js'

/** A list of at most `max` items, counted before any item is checked. */
function boundedList<T extends z.ZodType>(item: T, max: number) {
  return z.array(z.unknown()).max(max).pipe(z.array(item))
}

const text = z.string().max(limits.textChars).nullish()
const texts = boundedList(z.string().max(limits.textChars), limits.greetings).nullish()
const keys = boundedList(z.string().max(limits.keyChars), limits.keysPerEntry).nullish()
const shortText = z.string().max(limits.nameChars).nullish()
const extensions = z.record(z.string(), z.unknown()).nullish()

const cardBookEntrySchema = z.looseObject({
  keys,
  secondary_keys: keys,
  content: z.string().max(limits.entryContentChars),
  extensions,
  enabled: z.boolean().nullish(),
  insertion_order: z.number().nullish(),
  case_sensitive: z.boolean().nullish(),
  use_regex: z.boolean().nullish(),
  constant: z.boolean().nullish(),
  selective: z.boolean().nullish(),
  name: shortText,
  comment: text,
  priority: z.number().nullish(),
  id: z.union([z.number(), z.string()]).nullish(),
  position: text,
})

const cardBookSchema = z.looseObject({
  name: text,
  description: text,
  scan_depth: z.number().nullish(),
  token_budget: z.number().nullish(),
  recursive_scanning: z.boolean().nullish(),
  extensions,
  entries: boundedList(cardBookEntrySchema, limits.lorebookEntries).nullish(),
})

/** The `data` of a V2/V3 card (and, flat, a V1 card). */
export const cardDataSchema = z.looseObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'missing: a card needs a name' : undefined) })
    .max(limits.nameChars)
    .trim()
    .min(1, 'must not be empty'),
  description: text,
  personality: text,
  scenario: text,
  first_mes: text,
  mes_example: text,
  system_prompt: text,
  post_history_instructions: text,
  alternate_greetings: texts,
  group_only_greetings: texts,
  creator_notes: text,
  creator: text,
  character_version: text,
  tags: texts,
  nickname: text,
  source: texts,
  extensions,
  character_book: cardBookSchema.nullish(),
  assets: boundedList(z.looseObject({ type: z.string(), uri: z.string() }), limits.greetings).nullish(),
  creation_date: z.number().nullish(),
  modification_date: z.number().nullish(),
})

export type CardData = z.infer<typeof cardDataSchema>
export type CardBook = z.infer<typeof cardBookSchema>
export type CardBookEntry = z.infer<typeof cardBookEntrySchema>
