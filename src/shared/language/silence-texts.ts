/**
 * How the model is told it may stay silent on a turn that allows it (`conversation.silence`), per
 * language and per reply format: the line says exactly what to write so the reply parser
 * recognises it (`[silence]` alone, in the JSON format as its `text`). A character that writes an
 * inner thought (`character.thoughts`) keeps it: the note says the thought may still come first.
 */
import type { Language } from './detect-text-language.js'

export type SilenceFormat = 'json' | 'prefix' | 'auto' | 'plain'

export interface SilenceTexts {
  /**
   * The note added to a turn that may end in silence; `emotion` fills the JSON example; `thoughts`:
   * the character writes its inner thought first, silent or not.
   */
  silenceAllowed(format: SilenceFormat, emotion: string, thoughts?: boolean): string
}

const zh: SilenceTexts = {
  silenceAllowed: (format, emotion, thoughts) => {
    const json = format === 'json' || format === 'auto'
    const how = json
      ? thoughts
        ? `只输出 {"thought": "<内心想法>", "emotion": ${JSON.stringify(emotion)}, "text": "[silence]"}`
        : `只输出 {"emotion": ${JSON.stringify(emotion)}, "text": "[silence]"}`
      : format === 'prefix'
        ? '情感行之后只写 [silence]'
        : '只输出 [silence]'
    const before = thoughts && !json ? '照常先写 <thought>…</thought>，然后' : ''
    return `（这一轮你可以选择不说话：如果没有值得回应的内容，${before}${how}，不要写别的。）`
  },
}

const en: SilenceTexts = {
  silenceAllowed: (format, emotion, thoughts) => {
    const json = format === 'json' || format === 'auto'
    const how = json
      ? thoughts
        ? `write only {"thought": "<inner thought>", "emotion": ${JSON.stringify(emotion)}, "text": "[silence]"}`
        : `write only {"emotion": ${JSON.stringify(emotion)}, "text": "[silence]"}`
      : format === 'prefix'
        ? 'write only [silence] after the emotion line'
        : 'write only [silence]'
    const before = thoughts && !json ? 'write your <thought>…</thought> as usual, then ' : ''
    return `(You may choose not to speak this turn: if nothing here is worth answering, ${before}${how} and nothing else.)`
  },
}

const textsByLanguage: Record<Language, SilenceTexts> = { zh, en }

export function readSilenceTexts(language: Language): SilenceTexts {
  return textsByLanguage[language]
}
