/**
 * The default emotions in each language. Events always carry a label of the character's own
 * `emotions` list (its canonical labels, which avatars and TTS voices map), whatever language the
 * model was shown: an English character with the default list is shown `happy, calm, …`, writes
 * `happy`, and clients receive `开心` as before. A written label in either language finds the
 * configured one (`afraid` → 害怕, `开心` → happy for a character configured in English), so
 * avatars mapping Chinese labels keep working and no alias table has to list these names.
 */
import { lookUpOwn } from '../look-up-own.js'
import type { Language } from './detect-text-language.js'

/**
 * The default emotions: Chinese label → English label. Read with `lookUpOwn`: a label (configured,
 * or written by the model) such as `toString` is no default emotion, not Object.prototype's.
 */
const emotionNames: Readonly<Record<string, string>> = {
  开心: 'happy',
  平静: 'calm',
  难过: 'sad',
  生气: 'angry',
  惊讶: 'surprised',
  害怕: 'afraid',
  害羞: 'shy',
}

const chineseByEnglish = new Map(Object.entries(emotionNames).map(([chinese, english]) => [english, chinese]))

/**
 * How a configured label is shown to an English model: its English name when it is a default
 * emotion. Chinese characters are shown their labels as configured.
 */
export function showEmotionLabel(label: string, language: Language): string {
  return language === 'en' ? (lookUpOwn(emotionNames, label) ?? label) : label
}

/** The configured label a written default-emotion name stands for (in either language), if any. */
export function findEmotionByName(written: string, configured: ReadonlySet<string>): string | undefined {
  const lower = written.toLowerCase()
  const english = lookUpOwn(emotionNames, written) ?? (chineseByEnglish.has(lower) ? lower : undefined)
  if (english === undefined) return undefined
  if (configured.has(english)) return english
  const chinese = chineseByEnglish.get(english)!
  return configured.has(chinese) ? chinese : undefined
}

/** A default emotion's name in `language` (either way round); other labels as they are. For pages. */
export function translateEmotionLabel(label: string, language: Language): string {
  return language === 'en'
    ? (lookUpOwn(emotionNames, label) ?? label)
    : (chineseByEnglish.get(label.toLowerCase()) ?? label)
}
