/**
 * The reply of the builtin `mock` model: a few sentences in the configured reply format, with an
 * emotion, echoing a bit of what the user said and saying plainly that no real model answered. The
 * emotion is read from the user's words (a greeting is answered happy, see `chooseMockEmotion`) and
 * the reply opens in that mood, so the same input gives the same reply. It answers
 * in the language of the user's text (English or Chinese; Chinese when the text has no letters), as a
 * real model would, and names a default emotion the way an English model is shown it (`happy`).
 */
import { translateEmotionLabel } from '../shared/language/emotion-labels.js'
import { detectTextLanguage, type Language, showEmotionLabel } from '../shared/language/index.js'
import { lookUpOwn } from '../shared/look-up-own.js'
import { chooseMockEmotion } from './choose-mock-emotion.js'

export interface ComposeMockReplyOptions {
  /** What the user said last. */
  userText: string
  /** @default 'auto' */
  replyFormat?: 'json' | 'prefix' | 'auto' | 'plain'
  /** @default ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞'] */
  emotions?: string[]
  characterName?: string
}

const defaultEmotions = ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞']

interface MockWords {
  openers: Record<string, string>
  echo: (echo: string) => string
  silence: string
  /** What an emotion without an opener becomes. */
  aside: (emotion: string) => string
  disclaimer: (name: string | undefined) => string
  advice: string
  /** Between sentences. */
  separator: string
}

const wordsByLanguage: Record<Language, MockWords> = {
  zh: {
    openers: {
      开心: '太好啦！',
      平静: '嗯，我听到了。',
      难过: '唉，听起来有点让人难过。',
      生气: '哼，这可不行！',
      惊讶: '哇，真的吗？',
      害怕: '呜，有点吓人呢……',
      害羞: '诶嘿，被你这么说有点不好意思。',
    },
    echo: (echo) => `你刚才说「${echo}」。`,
    silence: '你好像什么都没说。',
    aside: (emotion) => `（${emotion}）`,
    disclaimer: (name) => `${name ? `我是${name}，` : ''}这条回复来自内置的 mock 模型，不是真正的大模型。`,
    advice: '配置好 llm.provider 之后，就能听到真正的回答啦！',
    separator: '',
  },
  en: {
    openers: {
      开心: "That's great!",
      平静: 'Mm, I hear you.',
      难过: 'Oh, that sounds a little sad.',
      生气: "Hmph, that won't do!",
      惊讶: 'Wow, really?',
      害怕: "Eek, that's a bit scary…",
      害羞: "Hehe, you're making me blush.",
    },
    echo: (echo) => `You just said "${echo}".`,
    silence: "You don't seem to have said anything.",
    aside: (emotion) => `(${emotion})`,
    disclaimer: (name) =>
      `${name ? `I'm ${name}, and this` : 'This'} reply comes from the builtin mock model, not a real language model.`,
    advice: "Once llm.provider is configured, you'll hear real answers!",
    separator: ' ',
  },
}

/** Up to 20 characters of what the user said, on one line. */
function echoOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  const characters = Array.from(line)
  return characters.length > 20 ? `${characters.slice(0, 20).join('')}…` : line
}

export interface ComposeMockReplyResult {
  /** The raw model output, in the reply format. */
  text: string
  emotion: string
}

export function composeMockReply(options: ComposeMockReplyOptions): ComposeMockReplyResult {
  const emotions = options.emotions?.length ? options.emotions : defaultEmotions
  const configured = chooseMockEmotion(options.userText, emotions)
  const language = detectTextLanguage(options.userText) ?? 'zh'
  const words = wordsByLanguage[language]
  const emotion = showEmotionLabel(configured, language)
  const echo = echoOf(options.userText)
  const sentences = [
    lookUpOwn(words.openers, translateEmotionLabel(configured, 'zh')) ?? words.aside(emotion),
    echo ? words.echo(echo) : words.silence,
    words.disclaimer(options.characterName || undefined),
    words.advice,
  ]
  const body = sentences.join(words.separator)
  switch (options.replyFormat ?? 'auto') {
    case 'json':
      return { text: JSON.stringify({ emotion, text: body }), emotion }
    case 'plain':
      return { text: body, emotion }
    default:
      return { text: `${JSON.stringify({ emotion })}${body}`, emotion }
  }
}
