/**
 * The character's system prompt (seed 000): name, persona, scenario and the reply-format
 * instructions with the emotion list, in the character's language. Memories are added after it by the assembler so they end up at its end.
 */
import type { CharacterConfig } from '../../config/schema.js'
import {
  readScaffoldingTexts,
  readThoughtTexts,
  resolveCharacterLanguage,
  showEmotionLabel,
} from '../../shared/language/index.js'

/** Instructions that make the model answer in the shape the reply parser expects (SPEC R2.1-R2.3). */
export function buildReplyFormatInstructions(character: CharacterConfig): string {
  const language = resolveCharacterLanguage(character)
  const texts = readScaffoldingTexts(language)
  const shown = character.emotions.map((label) => showEmotionLabel(label, language))
  const emotions = shown.join(texts.listSeparator)
  const lines: string[] = []
  switch (character.reply_format) {
    case 'json':
    case 'auto':
      lines.push(...texts.jsonFormat(emotions))
      break
    case 'prefix':
      lines.push(...texts.prefixFormat(emotions))
      break
    case 'plain':
      break
  }
  if (character.inline_emotion_tags) {
    lines.push(texts.inlineTags(shown[0] ?? showEmotionLabel('开心', language), emotions))
  }
  if (character.thoughts) lines.push(readThoughtTexts(language).thoughtFormat(character.reply_format))
  return lines.join('\n')
}

/** What a template's `{{original}}` stands for (a card's name for it): the default opening part. */
const originalPromptMacro = '{{original}}'

/** The default opening: who is talking to whom, the persona and the scenario. */
function buildCharacterSection(character: CharacterConfig): string {
  const texts = readScaffoldingTexts(resolveCharacterLanguage(character))
  const sections = [texts.characterIntro]
  if (character.persona.trim()) sections.push(`${texts.personaLabel}\n${character.persona.trim()}`)
  if (character.scenario.trim()) sections.push(`${texts.scenarioLabel}\n${character.scenario.trim()}`)
  return sections.join('\n\n')
}

/**
 * Name, persona, scenario and format instructions, before macros are expanded. A template replaces
 * the name, persona and scenario part; `{{original}}` in it puts that part back where it stands.
 */
export function buildSystemPrompt(character: CharacterConfig, template?: string): string {
  const sections: string[] = []
  if (template?.trim()) {
    const trimmed = template.trim()
    sections.push(
      trimmed.includes(originalPromptMacro)
        ? trimmed.replaceAll(originalPromptMacro, () => buildCharacterSection(character))
        : trimmed,
    )
  } else {
    sections.push(buildCharacterSection(character))
  }
  const format = buildReplyFormatInstructions(character)
  if (format) sections.push(format)
  return sections.join('\n\n')
}
