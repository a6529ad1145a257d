/**
 * What the model is asked when it keeps the long-term memory up to date (`memory.extract: true`),
 * per language: the instructions, and the labels of the request around the stored facts and the
 * turn. The Chinese texts are the ones charpipe always sent.
 */
import type { Language } from './detect-text-language.js'

export interface MemoryTexts {
  /** Opens the instructions: tells an extraction request apart from a turn's (tests, logs). */
  extractionMarker: string
  /** The system message; it starts with the marker. */
  extractionPrompt: string
  /** The user message: the stored facts shown (`（没有）` when none) and the turn. */
  extractionRequest: (known: string | undefined, turnText: string) => string
}

const zh: MemoryTexts = {
  extractionMarker: '【记忆整理】',
  extractionPrompt: `【记忆整理】你负责维护角色对用户的长期记忆。阅读一轮对话，找出值得长期记住的事实（用户的身份、喜好、经历、计划、人际关系，以及双方的约定），与“已有记忆”比较后，对每条事实做出一个决定：
- add：新的事实；
- update：某条已有记忆需要更正或补充，给出它的 id 和完整的新文本；
- delete：某条已有记忆被这轮对话推翻，给出它的 id；
- none：没有需要改动的。
每条事实写成一句独立完整的话，用对话所用的语言，写明主语（例如“用户喜欢蓝色”）。寒暄、客套和角色自己的台词不要记。
只输出 JSON，不要任何其他文字，格式：
{"memory":[{"event":"add","text":"…"},{"event":"update","id":"…","text":"…"},{"event":"delete","id":"…"}]}
没有要记的内容时输出 {"memory":[]}。`,
  extractionRequest: (known, turnText) => `已有记忆：\n${known ?? '（没有）'}\n\n本轮对话：\n${turnText}`,
}

const en: MemoryTexts = {
  extractionMarker: '[Memory upkeep]',
  extractionPrompt: `[Memory upkeep] You keep the character's long-term memory of the user. Read one turn of a conversation, find the facts worth remembering for a long time (the user's identity, likes, experiences, plans and relationships, and what the two agreed on), compare them with the "Known memories", and make one decision for each fact:
- add: a new fact;
- update: a known memory needs correcting or completing; give its id and the whole new text;
- delete: this turn proves a known memory wrong; give its id;
- none: nothing to change.
Write each fact as one complete sentence of its own, in the language of the conversation, naming who it is about (for example "The user likes blue"). Do not keep greetings, pleasantries or the character's own lines.
Output only JSON, with no other text, in this format:
{"memory":[{"event":"add","text":"…"},{"event":"update","id":"…","text":"…"},{"event":"delete","id":"…"}]}
When there is nothing to remember, output {"memory":[]}.`,
  extractionRequest: (known, turnText) => `Known memories:\n${known ?? '(none)'}\n\nThis turn:\n${turnText}`,
}

const textsByLanguage: Record<Language, MemoryTexts> = { zh, en }

export function readMemoryTexts(language: Language): MemoryTexts {
  return textsByLanguage[language]
}
