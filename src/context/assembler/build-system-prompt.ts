/**
 * The character's system prompt (seed 000): name, persona, scenario and the reply-format
 * instructions with the emotion list. Memories are added after it by the assembler so they end up at its end.
 */
import type { CharacterConfig } from '../../config/schema.js'

/** Instructions that make the model answer in the shape the reply parser expects (SPEC R2.1-R2.3). */
export function buildReplyFormatInstructions(character: CharacterConfig): string {
  const emotions = character.emotions.join('、')
  const lines: string[] = []
  switch (character.reply_format) {
    case 'json':
    case 'auto':
      lines.push(
        '【输出格式】只输出一个 JSON 对象，不要输出任何其他内容（不要代码块）：',
        '{"emotion": "<情感>", "text": "<回复内容>"}',
        `emotion 必须是以下之一：${emotions}。`,
      )
      break
    case 'prefix':
      lines.push(
        '【输出格式】第一行只写一个 JSON 对象标明情感，然后换行直接写回复内容：',
        '{"emotion": "<情感>"}',
        '<回复内容>',
        `emotion 必须是以下之一：${emotions}。`,
      )
      break
    case 'plain':
      break
  }
  if (character.inline_emotion_tags) {
    lines.push(
      `情感变化时，可以在句子前插入情感标签，如 [${character.emotions[0] ?? '开心'}]，标签只能用：${emotions}。`,
    )
  }
  return lines.join('\n')
}

/** What a template's `{{original}}` stands for (a card's name for it): the default opening part. */
export const originalPromptMacro = '{{original}}'

/** The default opening: who is talking to whom, the persona and the scenario. */
export function buildCharacterSection(character: CharacterConfig): string {
  const sections = ['你是{{char}}，正在和{{user}}对话。']
  if (character.persona.trim()) sections.push(`【人设】\n${character.persona.trim()}`)
  if (character.scenario.trim()) sections.push(`【场景】\n${character.scenario.trim()}`)
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
