/**
 * A `character` block as a Character Card V3 (`chara_card_v3`). Its `data` carries every V2 field
 * too, so a V2 reader that looks at `data` finds what it knows. The fields kept in `card` at import
 * are written back; the ones the character block owns are written from it.
 */
import type { CharacterConfig } from '../../config/schema.js'
import { originalMacro, splitPersona, writeCardSystemPrompt } from './card-text-mapping.js'
import { charpipeExtensionKey, writeCharpipeExtension } from './charpipe-card-extension.js'
import { convertLorebookToCardBook } from './convert-card-book.js'
import { formatExampleDialogue } from './parse-example-dialogue.js'

export interface CardV3 {
  spec: 'chara_card_v3'
  spec_version: '3.0'
  data: Record<string, unknown>
}

/** What a V3 card must have; a character made in charpipe starts from these. */
const requiredDefaults = {
  creator_notes: '',
  tags: [],
  creator: '',
  character_version: '',
  extensions: {},
  group_only_greetings: [],
}

function assemblerSettingsOf(character: CharacterConfig): Record<string, unknown> {
  return character.pipeline?.processors['injection-assembler'] ?? {}
}

function readSystemPrompt(settings: Record<string, unknown>): string {
  return typeof settings.system_prompt === 'string' ? writeCardSystemPrompt(settings.system_prompt) : ''
}

/** The first system message at depth 0: what a card's post_history_instructions became. */
function readPostHistoryInstructions(settings: Record<string, unknown>): string {
  const injections = Array.isArray(settings.depth_injections) ? settings.depth_injections : []
  const found = injections.find(
    (entry): entry is { content: string } =>
      typeof entry === 'object' &&
      entry !== null &&
      entry.depth === 0 &&
      (entry.role ?? 'system') === 'system' &&
      typeof entry.content === 'string',
  )
  return found?.content ?? ''
}

function hasBook(character: CharacterConfig): boolean {
  return character.lorebook.entries.length > 0 || Object.keys(character.lorebook.card).length > 0
}

export function convertCharacterToCard(character: CharacterConfig): CardV3 {
  const { description, personality } = splitPersona(character.persona)
  const settings = assemblerSettingsOf(character)
  const { character_book: _stale, ...kept } = character.card
  const systemPrompt = readSystemPrompt(settings)
  const own = writeCharpipeExtension(character)
  const extensions = {
    ...((kept.extensions as Record<string, unknown> | undefined) ?? {}),
    ...(Object.keys(own).length > 0 ? { [charpipeExtensionKey]: own } : {}),
  }
  return {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      ...requiredDefaults,
      ...kept,
      extensions,
      name: character.name,
      description,
      personality,
      scenario: character.scenario,
      first_mes: character.greeting,
      alternate_greetings: [...character.alternate_greetings],
      mes_example: formatExampleDialogue(character.injected_history),
      system_prompt: systemPrompt === originalMacro ? '' : systemPrompt,
      post_history_instructions: readPostHistoryInstructions(settings),
      ...(hasBook(character) ? { character_book: convertLorebookToCardBook(character.lorebook) } : {}),
    },
  }
}
