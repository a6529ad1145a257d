/**
 * What a chat platform connector writes for the parts of a message that are not text (an image it
 * cannot pass on, a platform emoji, an at of everyone), per language: the line is what the model
 * reads and the history keeps. The Chinese texts are the ones charpipe always wrote (and QQ shows).
 */
import type { Language } from './detect-text-language.js'

export interface ChatPlatformTexts {
  image: string
  emoji: string
  atEveryone: string
}

const zh: ChatPlatformTexts = { image: '[图片]', emoji: '[表情]', atEveryone: '@全体成员' }

const en: ChatPlatformTexts = { image: '[Image]', emoji: '[Emoji]', atEveryone: '@everyone' }

const textsByLanguage: Record<Language, ChatPlatformTexts> = { zh, en }

export function readChatPlatformTexts(language: Language): ChatPlatformTexts {
  return textsByLanguage[language]
}
