/**
 * The `character` section and its lorebook: who the model plays, and the entries injected
 * when their keys come up. `characters` in the root schema reuses it per id.
 */
import * as z from 'zod'
import { readEmotionDefaults } from '../../shared/language/emotion-defaults.js'
import { characterAudienceSchema } from './audience.js'
import { characterLimits as limits } from './character-limits.js'
import { processorMapSchema } from './fields.js'

// The documented defaults are the Chinese ones; an English character that sets none gets the
// English ones before the schema runs (see `applyLanguageDefaults`).
const emotionDefaults = readEmotionDefaults('zh')

const longText = () => z.string().max(limits.textChars)
const lorebookKey = () => z.string().min(1).max(limits.keyChars)
const keyList = () => z.array(lorebookKey()).max(limits.keysPerEntry)

const injectedMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant']).describe('Who says it.'),
  content: longText().describe('What is said.'),
})

export const replyFormatSchema = z
  .enum(['json', 'prefix', 'auto', 'plain'])
  .describe(
    'json: {"emotion","text"}; prefix: {"emotion"} then plain text; auto: either; plain: no emotion parsing.',
  )

export const lorebookEntrySchema = z
  .strictObject({
    name: z.string().max(limits.nameChars).default('').describe('A label for people; not sent to the model.'),
    keys: keyList().default([]).describe('Words (or /regex/flags) that trigger the entry.'),
    secondary_keys: keyList().default([]).describe('With selective: one of these must appear too.'),
    selective: z.boolean().default(false).describe('Needs a key and a secondary key.'),
    constant: z.boolean().default(false).describe('Always injected, keys or not.'),
    case_sensitive: z.boolean().default(false).describe('Keys match with case.'),
    match_whole_words: z
      .boolean()
      .default(true)
      .describe(
        'A key made of one word matches whole words only ("wood" not in "Hollywood"); keys in scripts written without spaces (Chinese, Japanese) match inside text either way.',
      ),
    enabled: z.boolean().default(true).describe('False: never injected.'),
    content: z.string().max(limits.entryContentChars).describe('What is injected when the entry triggers.'),
    insertion_order: z
      .int()
      .default(100)
      .describe('Entries with a higher order are kept first when the budget is short, and placed later.'),
    position: z
      .enum(['before_char', 'after_char', 'depth'])
      .default('before_char')
      .describe('Before or after the persona in the system prompt, or inside the history at depth.'),
    depth: z
      .int()
      .min(0)
      .max(1000)
      .default(4)
      .describe('With position depth: messages from the end of the history.'),
    role: z
      .enum(['system', 'user', 'assistant'])
      .default('system')
      .describe('With position depth: who says it.'),
    card: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Fields of the card's entry that charpipe does not use, written back on export."),
  })
  .describe('A keyword-triggered lorebook (world info) entry.')

/** The entries' keys and contents together stay within their totals (what a turn scans and counts). */
function checkLorebookTotals(context: z.core.ParsePayload<LorebookEntryTotals[]>): void {
  let keyChars = 0
  let contentChars = 0
  for (const entry of context.value) {
    for (const key of [...entry.keys, ...entry.secondary_keys]) keyChars += key.length
    contentChars += entry.content.length
  }
  if (keyChars > limits.lorebookKeyChars)
    context.issues.push({
      code: 'custom',
      input: context.value,
      message: `the keys hold ${keyChars} characters together; at most ${limits.lorebookKeyChars}`,
    })
  if (contentChars > limits.lorebookContentChars)
    context.issues.push({
      code: 'custom',
      input: context.value,
      message: `the contents hold ${contentChars} characters together; at most ${limits.lorebookContentChars}`,
    })
}

interface LorebookEntryTotals {
  keys: string[]
  secondary_keys: string[]
  content: string
}

export const lorebookSchema = z
  .strictObject({
    scan_depth: z
      .int()
      .min(0)
      .max(1000)
      .default(4)
      .describe('How many of the newest messages (the input included) are scanned for keys.'),
    token_budget: z
      .int()
      .min(0)
      .max(1_000_000)
      .default(1024)
      .describe('Most tokens of entries injected in one turn.'),
    recursive: z.boolean().default(false).describe('Injected entries may trigger further entries.'),
    entries: z
      .array(lorebookEntrySchema)
      .max(limits.lorebookEntries)
      .default([])
      .describe('The entries.')
      .check(checkLorebookTotals),
    card: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("Fields of the card's character_book that charpipe does not use, written back on export."),
  })
  .describe("The character's lorebook: entries injected when their keys appear in the conversation.")

export const characterSchema = z
  .strictObject({
    id: z
      .string()
      .max(200)
      .default('')
      .describe(
        "The key the character's history and memory are stored under; empty: the name. Renaming through the page pins it to the old name, so conversations are kept.",
      ),
    name: z
      .string()
      .max(limits.nameChars)
      .default('小助手')
      .describe(
        "The character's name ({{char}}); a config without `character` on an English-locale machine: Assistant.",
      ),
    language: z
      .enum(['auto', 'zh', 'en'])
      .default('auto')
      .describe(
        "The language of charpipe's own words around the character (system prompt labels and format rules, the user's default name, emotion labels shown to the model, tool prompts, attachment placeholders, the group chat frame, the fact-extraction and idle prompts, the image describer's default prompt); auto: read from the persona, greeting and scenario, else the name (Chinese when they say nothing).",
      ),
    user_name: z
      .string()
      .max(limits.nameChars)
      .default('')
      .describe("The user's name ({{user}}); empty: the character language's word (User, 用户)."),
    persona: longText()
      .default('')
      .describe('Who the character is: personality, background, manner of speech.'),
    reply_format: replyFormatSchema.default('auto'),
    default_emotion: z
      .string()
      .min(1)
      .default(emotionDefaults.default_emotion)
      .describe('Emotion when the model gives none (an English character that sets no emotions: calm).'),
    emotions: z
      .array(z.string().min(1))
      .default(emotionDefaults.emotions)
      .describe(
        'Emotion labels the model may use; an English character that sets none gets happy, calm, sad, angry, surprised, afraid, shy.',
      ),
    inline_emotion_tags: z
      .boolean()
      .default(false)
      .describe('Parse inline tags such as [开心] or <|ACT {"emotion":…}|> inside the text.'),
    thoughts: z
      .boolean()
      .default(false)
      .describe(
        "The model writes a short inner thought before its line (the JSON format's `thought` field, else a leading `<thought>…</thought>`): sent as `llm_thought` and stored with the turn, never spoken, shown as the reply or sent back to the model.",
      ),
    emotion_aliases: z
      .record(z.string(), z.string())
      .default(emotionDefaults.emotion_aliases)
      .describe('Maps labels a model may write instead (happy) to configured ones (开心).'),
    user_emotion_map: z
      .record(z.string(), z.string())
      .default(emotionDefaults.user_emotion_map)
      .describe('Maps the speech recogniser emotion to the words appended as [用户语气：…].'),
    injected_history: z
      .array(injectedMessageSchema)
      .max(limits.injectedMessages)
      .default([])
      .describe('Example dialogue placed after the system prompt and before the history.'),
    scenario: longText()
      .default('')
      .describe('The situation the conversation takes place in; shown after the persona ({{scenario}}).'),
    greeting: longText()
      .default('')
      .describe(
        "The character's first message: a new session opens with it as a stored assistant reply (a card's first_mes); empty: the user speaks first.",
      ),
    alternate_greetings: z
      .array(longText().min(1))
      .max(limits.greetings)
      .default([])
      .describe(
        'Other first messages; a new session opens with one of greeting and these, chosen at random.',
      ),
    avatar: z
      .string()
      // A data URI of a picture of at most `avatarBytes` (base64 takes 4 characters for 3 bytes).
      .max(Math.ceil(limits.avatarBytes / 3) * 4 + 100)
      .default('')
      .describe("Picture of the character: an asset path, an http(s) URL or a data URI (a card's image)."),
    lorebook: lorebookSchema.prefault({}),
    pipeline: z
      .strictObject({
        processors: processorMapSchema.describe(
          'Per processor id: {enabled, priority, ...options}, over the top-level pipeline.processors entry of the same id.',
        ),
      })
      .optional()
      .describe("This character's own processor settings (characters that need other rules than the rest)."),
    audience: characterAudienceSchema,
    card: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'Fields of an imported character card that charpipe does not use (creator, tags, extensions, …), written back on export.',
      ),
  })
  .describe('The character.')

/** A character's id as it appears in URLs, `model` names and file names. */
export const characterIdKeySchema = z
  .string()
  .regex(
    /^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,63}$/u,
    'letters, digits, _ . - (at most 64, not starting with . or -)',
  )
