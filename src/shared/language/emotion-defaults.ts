/**
 * The emotion settings a character gets when it sets none, per language: the labels events carry,
 * the one used when the model gives none, the names a model may write instead, and the words the
 * speech recogniser's emotion becomes. The Chinese ones are the documented defaults of
 * `character` (PROTOCOL.md); an English character gets the same seven emotions by their English
 * names, so its events say `happy` rather than `开心`. Either way a label written in the other
 * language still finds its emotion (see `findEmotionByName`).
 */
import type { Language } from './detect-text-language.js'
import { type LanguageSource, resolveCharacterLanguage } from './resolve-character-language.js'

export interface EmotionDefaults {
  default_emotion: string
  emotions: string[]
  emotion_aliases: Record<string, string>
  user_emotion_map: Record<string, string>
}

const chinese: EmotionDefaults = {
  default_emotion: '平静',
  emotions: ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞'],
  emotion_aliases: {
    happy: '开心',
    joy: '开心',
    neutral: '平静',
    calm: '平静',
    sad: '难过',
    angry: '生气',
    surprised: '惊讶',
    fear: '害怕',
    shy: '害羞',
  },
  user_emotion_map: {
    happy: '愉快',
    sad: '难过',
    angry: '生气',
    surprised: '惊讶',
    fearful: '害怕',
    disgusted: '厌恶',
  },
}

// The aliases avatars already send (happy, joy, neutral, calm, sad, angry, surprised, fear, shy):
// those that are not labels here point to the label they mean.
const english: EmotionDefaults = {
  default_emotion: 'calm',
  emotions: ['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy'],
  emotion_aliases: { joy: 'happy', neutral: 'calm', fear: 'afraid' },
  user_emotion_map: {
    happy: 'cheerful',
    sad: 'sad',
    angry: 'angry',
    surprised: 'surprised',
    fearful: 'afraid',
    disgusted: 'disgusted',
  },
}

/** A fresh copy of the language's emotion settings (callers may keep and change it). */
export function readEmotionDefaults(language: Language): EmotionDefaults {
  return structuredClone(language === 'en' ? english : chinese)
}

/**
 * A character block with the emotion settings of its language, where it sets none (neither
 * `emotions` nor `default_emotion`): an English block gets the English ones; a Chinese block is
 * returned as it is, the schema's defaults being the Chinese ones.
 */
export function fillEmotionDefaults<Block extends LanguageSource & Record<string, unknown>>(
  block: Block,
): Block {
  if (block.emotions !== undefined || block.default_emotion !== undefined) return block
  if (resolveCharacterLanguage(block) !== 'en') return block
  const defaults = readEmotionDefaults('en')
  return {
    ...block,
    emotions: defaults.emotions,
    default_emotion: defaults.default_emotion,
    emotion_aliases: block.emotion_aliases ?? defaults.emotion_aliases,
    user_emotion_map: block.user_emotion_map ?? defaults.user_emotion_map,
  }
}
