/**
 * What charpipe says to the character on the audience's behalf, per language: the default
 * instruction of an idle turn (`audience.idle.instruction` left empty). The Chinese text is the one
 * charpipe always sent.
 */
import type { Language } from './detect-text-language.js'

export interface AudienceTexts {
  idleInstruction: string
  /** How a past idle turn's instruction is replayed: a note of what happened, not anyone's words. */
  pastIdleInstruction(instruction: string): string
  /** How an event given to the session (`sessions.event`) reaches the model: a note, not anyone's words. */
  event(text: string): string
}

const zh: AudienceTexts = {
  idleInstruction:
    '（一段时间没有人说话了。请按你的性格主动开启一个话题，或者和在场的人聊聊，一两句话即可。）',
  pastIdleInstruction: (instruction) => `[事件] 此时无人说话，你被提示主动开口：${instruction}`,
  event: (text) => `[事件] ${text}`,
}

const en: AudienceTexts = {
  idleInstruction:
    '(No one has said anything for a while. Start a topic the way your character would, or chat with the people here; a sentence or two is enough.)',
  pastIdleInstruction: (instruction) =>
    `[Event] No one was talking, and you were prompted to speak first: ${instruction}`,
  event: (text) => `[Event] ${text}`,
}

const textsByLanguage: Record<Language, AudienceTexts> = { zh, en }

export function readAudienceTexts(language: Language): AudienceTexts {
  return textsByLanguage[language]
}
