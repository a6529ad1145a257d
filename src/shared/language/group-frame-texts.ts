/**
 * The default frame of a group chat's input (`conversation.group.template` and `current_template`
 * when left empty), per language: what others said since the character's last reply, then the
 * message it answers. The input is stored as framed, so a stored turn keeps the frame it was read
 * with. The Chinese texts are the ones charpipe always wrote.
 */
import type { Language } from './detect-text-language.js'

export interface GroupFrameTexts {
  /** With observed lines pending: `{{observed}}` and `{{current}}`. */
  template: string
  /** With a speaker and nothing observed: `{{current}}`. */
  currentTemplate: string
}

const zh: GroupFrameTexts = {
  template: '[群聊记录]\n{{observed}}\n[当前消息]\n{{current}}',
  currentTemplate: '[当前消息]\n{{current}}',
}

const en: GroupFrameTexts = {
  template: '[Group chat]\n{{observed}}\n[Current message]\n{{current}}',
  currentTemplate: '[Current message]\n{{current}}',
}

const textsByLanguage: Record<Language, GroupFrameTexts> = { zh, en }

export function readGroupFrameTexts(language: Language): GroupFrameTexts {
  return textsByLanguage[language]
}
