/**
 * The reply of the builtin `mock` model: a few sentences in the configured reply format, with an
 * emotion, echoing a bit of what the user said and saying plainly that no real model answered. The
 * emotion and wording follow from the user's text, so the same input gives the same reply.
 */
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

const openers: Record<string, string> = {
  开心: '太好啦！',
  平静: '嗯，我听到了。',
  难过: '唉，听起来有点让人难过。',
  生气: '哼，这可不行！',
  惊讶: '哇，真的吗？',
  害怕: '呜，有点吓人呢……',
  害羞: '诶嘿，被你这么说有点不好意思。',
}

function hashText(text: string): number {
  let hash = 2166136261
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 16777619)
  }
  return hash >>> 0
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
  const emotion = emotions[hashText(options.userText) % emotions.length]!
  const echo = echoOf(options.userText)
  const name = options.characterName ? `我是${options.characterName}，` : ''
  const sentences = [
    openers[emotion] ?? `（${emotion}）`,
    echo ? `你刚才说「${echo}」。` : '你好像什么都没说。',
    `${name}这条回复来自内置的 mock 模型，不是真正的大模型。`,
    '配置好 llm.provider 之后，就能听到真正的回答啦！',
  ]
  const body = sentences.join('')
  switch (options.replyFormat ?? 'auto') {
    case 'json':
      return { text: JSON.stringify({ emotion, text: body }), emotion }
    case 'plain':
      return { text: body, emotion }
    default:
      return { text: `${JSON.stringify({ emotion })}${body}`, emotion }
  }
}
