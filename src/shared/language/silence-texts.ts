/**
 * How the model is told it may stay silent on a turn that allows it (`conversation.silence`), per
 * language and per reply format: the line says exactly what to write so the reply parser
 * recognises it (`[silence]` alone, in the JSON format as its `text`).
 */
import type { Language } from './detect-text-language.js'

export type SilenceFormat = 'json' | 'prefix' | 'auto' | 'plain'

export interface SilenceTexts {
  /** The note added to a turn that may end in silence; `emotion` fills the JSON example. */
  silenceAllowed(format: SilenceFormat, emotion: string): string
}

const zh: SilenceTexts = {
  silenceAllowed: (format, emotion) => {
    const how =
      format === 'json' || format === 'auto'
        ? `只输出 {"emotion": ${JSON.stringify(emotion)}, "text": "[silence]"}`
        : format === 'prefix'
          ? '情感行之后只写 [silence]'
          : '只输出 [silence]'
    return `（这一轮你可以选择不说话：如果没有值得回应的内容，${how}，不要写别的。）`
  },
}

const en: SilenceTexts = {
  silenceAllowed: (format, emotion) => {
    const how =
      format === 'json' || format === 'auto'
        ? `write only {"emotion": ${JSON.stringify(emotion)}, "text": "[silence]"}`
        : format === 'prefix'
          ? 'write only [silence] after the emotion line'
          : 'write only [silence]'
    return `(You may choose not to speak this turn: if nothing here is worth answering, ${how} and nothing else.)`
  },
}

const textsByLanguage: Record<Language, SilenceTexts> = { zh, en }

export function readSilenceTexts(language: Language): SilenceTexts {
  return textsByLanguage[language]
}
