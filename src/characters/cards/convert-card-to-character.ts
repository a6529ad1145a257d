/**
 * A checked card's `data` as a `character` block (the fields a card sets; the rest keep their
 * defaults). Fields charpipe does not use go to `card`, to be written back on export.
 */
import type { z } from 'zod'
import type { characterSchema } from '../../config/schema.js'
import { fillEmotionDefaults } from '../../shared/language/index.js'
import type { CardData } from './card-schema.js'
import { joinPersona, readCardSystemPrompt, readPostHistoryInstructions } from './card-text-mapping.js'
import { charpipeExtensionKey, readCharpipeExtension } from './charpipe-card-extension.js'
import { convertCardBookToLorebook } from './convert-card-book.js'
import { parseExampleDialogue } from './parse-example-dialogue.js'

export type CharacterInput = z.input<typeof characterSchema>

/** Card fields that have a place in the character block. */
const mappedCardFields = new Set([
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'alternate_greetings',
  'mes_example',
  'system_prompt',
  'post_history_instructions',
  'character_book',
])

/**
 * Spec fields an export writes anyway (empty when there is nothing): kept in `card` only when they
 * say something, so import → export → import gives the same character.
 */
const droppedWhenEmpty = new Set([
  'creator_notes',
  'tags',
  'creator',
  'character_version',
  'extensions',
  'group_only_greetings',
  'nickname',
  'source',
  'creator_notes_multilingual',
])

function isEmptyValue(value: unknown): boolean {
  if (value === '' || value === null || value === undefined) return true
  if (Array.isArray(value)) return value.length === 0
  return typeof value === 'object' && Object.keys(value).length === 0
}

function assemblerSettings(data: CardData): Record<string, unknown> | undefined {
  const template = readCardSystemPrompt(data.system_prompt ?? '')
  const after = readPostHistoryInstructions(data.post_history_instructions ?? '')
  if (!template && !after) return undefined
  return {
    ...(template ? { system_prompt: template } : {}),
    ...(after ? { depth_injections: [{ role: 'system', depth: 0, content: after }] } : {}),
  }
}

/** The card's `extensions` without charpipe's own, which become fields of the character block. */
function splitExtensions(extensions: Record<string, unknown> | null | undefined) {
  const { [charpipeExtensionKey]: own, ...others } = extensions ?? {}
  return { own: readCharpipeExtension(own), others }
}

export function convertCardToCharacter(data: CardData, avatar: string): CharacterInput {
  const extensions = splitExtensions(data.extensions)
  const card: Record<string, unknown> = {}
  for (const [key, value] of Object.entries({ ...data, extensions: extensions.others }))
    if (!mappedCardFields.has(key) && !(droppedWhenEmpty.has(key) && isEmptyValue(value)) && value != null)
      card[key] = value
  const assembler = assemblerSettings(data)
  const book = data.character_book
  // The emotions follow the card's language, unless charpipe's own extension brings them.
  return fillEmotionDefaults({
    ...extensions.own,
    name: data.name,
    persona: joinPersona(data.description ?? '', data.personality ?? ''),
    scenario: data.scenario ?? '',
    greeting: data.first_mes ?? '',
    alternate_greetings: (data.alternate_greetings ?? []).filter((greeting) => greeting.trim() !== ''),
    injected_history: parseExampleDialogue(data.mes_example ?? '', data.name),
    ...(avatar ? { avatar } : {}),
    ...(book ? { lorebook: convertCardBookToLorebook(book) } : {}),
    ...(assembler ? { pipeline: { processors: { 'injection-assembler': assembler } } } : {}),
    card,
  })
}
