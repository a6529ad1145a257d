/**
 * The builtin mock's emotion, read from what the user said so that its reply's words fit it: a
 * greeting or thanks is answered happy, a sad or tired word sad, and so on (a few words in English
 * and Chinese per default emotion); anything else calm. A character whose emotions are not the
 * defaults gets one of its own, chosen by the text's hash, so the same input gives the same reply.
 */
import { findEmotionByName } from '../shared/language/index.js'

/** Words that call for each default emotion, by its Chinese label; checked in this order. */
const cues: readonly [string, RegExp][] = [
  ['害怕', /\b(scared|afraid|fear|frighten\w*|scary|terrif\w*)\b|害怕|可怕|吓/i],
  ['生气', /\b(angry|hate|annoy\w*|stupid|furious|mad at)\b|生气|讨厌|烦死|气死/i],
  ['难过', /\b(sad|sorry|tired|lonely|miss(ed)? you|cry\w*|upset|depress\w*)\b|难过|伤心|好累|哭|孤单|想你/i],
  ['惊讶', /\b(wow|really\?|no way|unbelievable|surpris\w*)\b|真的吗|哇|居然|竟然/i],
  ['害羞', /\b(cute|pretty|beautiful|blush\w*|adorable)\b|可爱|漂亮|害羞/i],
  [
    '开心',
    /\b(hello|hi|hey|thanks?|thank you|great|love|glad|happy|good (morning|evening|night)|nice)\b|你好|您好|嗨|谢谢|哈哈|开心|喜欢|太好|早上好|晚上好/i,
  ],
]

function hashText(text: string): number {
  let hash = 2166136261
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 16777619)
  }
  return hash >>> 0
}

/** One of `emotions`: the one the user's words call for, else calm, else one by the text's hash. */
export function chooseMockEmotion(userText: string, emotions: readonly string[]): string {
  const configured = new Set(emotions)
  const called = cues.find(([, pattern]) => pattern.test(userText))?.[0] ?? '平静'
  return (
    findEmotionByName(called, configured) ??
    findEmotionByName('平静', configured) ??
    emotions[hashText(userText) % emotions.length]!
  )
}
