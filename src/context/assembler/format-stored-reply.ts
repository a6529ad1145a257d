/**
 * A past reply as the model would have written it. History stores the display text and the emotion
 * apart; sent back as bare text, it would show the model two formats in one conversation (the
 * system prompt and the example dialogue ask for `{"emotion", "text"}`) and the model drifts out of
 * the format, losing the avatar its emotion. The shapes and the emotion's name (English for an
 * English character) match `buildReplyFormatInstructions`.
 */
import type { CharacterConfig } from '../../config/schema.js'
import {
  type LanguageSource,
  resolveCharacterLanguage,
  showEmotionLabel,
} from '../../shared/language/index.js'

export function formatStoredReply(
  text: string,
  emotion: string | undefined,
  character: Pick<CharacterConfig, 'reply_format' | 'inline_emotion_tags' | 'default_emotion'> &
    LanguageSource,
): string {
  const language = resolveCharacterLanguage(character)
  const label = showEmotionLabel(emotion || character.default_emotion, language)
  switch (character.reply_format) {
    case 'json':
    case 'auto':
      return `{"emotion": ${JSON.stringify(label)}, "text": ${JSON.stringify(text)}}`
    case 'prefix':
      return `{"emotion": ${JSON.stringify(label)}}\n${text}`
    default:
      return character.inline_emotion_tags && emotion
        ? `[${showEmotionLabel(emotion, language)}]${text}`
        : text
  }
}
