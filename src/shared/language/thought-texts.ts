/**
 * How the model is told to write its inner thought (`character.thoughts`), per language and reply
 * format: the line names exactly the form the reply parser reads (the JSON envelope's `thought`
 * field, else a leading `<thought>…</thought>`), so a thought is never taken for speech.
 */
import type { Language } from './detect-text-language.js'

export type ThoughtFormat = 'json' | 'prefix' | 'auto' | 'plain'

export interface ThoughtTexts {
  /** The system prompt's line on the inner thought, after the format rules. */
  thoughtFormat(format: ThoughtFormat): string
}

const zh: ThoughtTexts = {
  thoughtFormat: (format) =>
    format === 'json' || format === 'auto'
      ? '【内心想法】先在 "thought" 字段写一句简短的内心想法（只有你自己知道，不会说出口），再写 emotion 和 text：{"thought": "<内心想法>", "emotion": "<情感>", "text": "<回复内容>"}'
      : '【内心想法】整条回复的最开头先写 <thought>一句简短的内心想法</thought>（只有你自己知道，不会说出口），然后再照常回复。',
}

const en: ThoughtTexts = {
  thoughtFormat: (format) =>
    format === 'json' || format === 'auto'
      ? '[Inner thought] First write one short inner thought in a "thought" field (only you know it; it is never said aloud), then emotion and text: {"thought": "<inner thought>", "emotion": "<emotion>", "text": "<reply>"}'
      : '[Inner thought] Begin your whole reply with <thought>one short inner thought</thought> (only you know it; it is never said aloud), then reply as usual.',
}

const textsByLanguage: Record<Language, ThoughtTexts> = { zh, en }

export function readThoughtTexts(language: Language): ThoughtTexts {
  return textsByLanguage[language]
}
