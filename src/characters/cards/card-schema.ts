/**
 * What a character card must look like for charpipe to read it: the fields of Character Card V1, V2
 * and V3 it uses or keeps, with their types. Lenient where real cards are (a missing optional field,
 * `null` for "none", extra fields kept), strict on types, so a wrong type is refused with the field's
 * name instead of turning into a broken character.
 */
import * as z from 'zod'

const text = z.string().nullish()
const texts = z.array(z.string()).nullish()
const extensions = z.record(z.string(), z.unknown()).nullish()

export const cardBookEntrySchema = z.looseObject({
  keys: texts,
  secondary_keys: texts,
  content: z.string(),
  extensions,
  enabled: z.boolean().nullish(),
  insertion_order: z.number().nullish(),
  case_sensitive: z.boolean().nullish(),
  use_regex: z.boolean().nullish(),
  constant: z.boolean().nullish(),
  selective: z.boolean().nullish(),
  name: text,
  comment: text,
  priority: z.number().nullish(),
  id: z.union([z.number(), z.string()]).nullish(),
  position: text,
})

export const cardBookSchema = z.looseObject({
  name: text,
  description: text,
  scan_depth: z.number().nullish(),
  token_budget: z.number().nullish(),
  recursive_scanning: z.boolean().nullish(),
  extensions,
  entries: z.array(cardBookEntrySchema).nullish(),
})

/** The `data` of a V2/V3 card (and, flat, a V1 card). */
export const cardDataSchema = z.looseObject({
  name: z.string({ error: 'missing: a card needs a name' }).trim().min(1, 'must not be empty'),
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
  assets: z.array(z.looseObject({ type: z.string(), uri: z.string() })).nullish(),
  creation_date: z.number().nullish(),
  modification_date: z.number().nullish(),
})

export type CardData = z.infer<typeof cardDataSchema>
export type CardBook = z.infer<typeof cardBookSchema>
export type CardBookEntry = z.infer<typeof cardBookEntrySchema>
