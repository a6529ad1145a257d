/**
 * An English and a Chinese character side by side on one engine with the builtin mock model: each
 * gets charpipe's own words in its language (system prompt, the user's default name in the example
 * dialogue, the emotion labels shown to the model), the mock answers in the language of the input,
 * and emotion events carry the configured labels either way.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { PreviewResult } from '../../src/context/types.js'
import { type Charpipe, createCharpipe } from '../../src/engine/index.js'
import { messageText } from '../../src/shared/messages.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createFakeProvider } from '../../src/testing/index.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

const defaultEmotions = ['开心', '平静', '难过', '生气', '惊讶', '害怕', '害羞']
const englishEmotions = ['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy']

const config = (miraLanguage?: 'zh' | 'en') =>
  makeConfig({
    llm: { provider: 'mock' },
    character: {
      name: '小助手',
      persona: '一个乐于助人的小助手。',
      injected_history: [
        { role: 'user', content: '{{user}}: "你是谁？"' },
        { role: 'assistant', content: '我是{{char}}。' },
      ],
    },
    characters: {
      mira: {
        name: 'Mira',
        ...(miraLanguage ? { language: miraLanguage } : {}),
        persona: 'A cheerful guide who knows every road of Eldoria.',
        injected_history: [
          { role: 'user', content: '{{user}}: "What is Eldoria?"' },
          { role: 'assistant', content: 'A land of long roads.' },
        ],
      },
    },
  })

const systemOf = (preview: PreviewResult) => messageText(preview.messages[0] as never)
const textOf = (preview: PreviewResult, index: number) => messageText(preview.messages[index] as never)

describe('a character speaks its own language', () => {
  it('gives an English and a Chinese character their own scaffolding, user name, labels and mock replies', async () => {
    charpipe = await createCharpipe(config())

    const english = await charpipe.inspect.preview({ session: 'en', character: 'mira', text: 'Hello!' })
    expect(systemOf(english)).toBe(
      [
        'You are Mira, talking with User.',
        '[Persona]\nA cheerful guide who knows every road of Eldoria.',
        '[Output format] Output one JSON object and nothing else (no code block):\n' +
          '{"emotion": "<emotion>", "text": "<reply>"}\n' +
          'emotion must be one of: happy, calm, sad, angry, surprised, afraid, shy.',
      ].join('\n\n'),
    )
    expect(textOf(english, 1)).toBe('User: "What is Eldoria?"')

    const chinese = await charpipe.inspect.preview({ session: 'zh', text: '你好！' })
    expect(systemOf(chinese)).toBe(
      [
        '你是小助手，正在和用户对话。',
        '【人设】\n一个乐于助人的小助手。',
        '【输出格式】只输出一个 JSON 对象，不要输出任何其他内容（不要代码块）：\n' +
          '{"emotion": "<情感>", "text": "<回复内容>"}\n' +
          'emotion 必须是以下之一：开心、平静、难过、生气、惊讶、害怕、害羞。',
      ].join('\n\n'),
    )
    expect(textOf(chinese, 1)).toBe('用户: "你是谁？"')

    const englishTurn = await collectEvents(
      charpipe.generate({ session: 'en', character: 'mira', text: 'Hello, what is Eldoria?' }),
    )
    const englishDone = doneOf(englishTurn)
    expect(englishDone.text).toContain('You just said "Hello, what is Eldor…".')
    expect(englishDone.text).toContain("I'm Mira, and this reply comes from the builtin mock model")
    expect(englishDone.text).not.toMatch(/\p{Script=Han}/u)
    // An English character that sets no emotions has the English labels: the model is asked for
    // them and clients receive them (a greeting is answered happy).
    expect(englishDone.emotion).toBe('happy')
    for (const event of englishTurn)
      if (event.type === 'llm_emotion' || event.type === 'llm_sentence')
        expect(englishEmotions).toContain(event.emotion)

    const chineseDone = doneOf(
      await collectEvents(charpipe.generate({ session: 'zh', text: '今天天气怎么样' })),
    )
    expect(chineseDone.text).toContain('你刚才说「今天天气怎么样」。')
    expect(chineseDone.text).toContain('我是小助手，这条回复来自内置的 mock 模型')
    expect(defaultEmotions).toContain(chineseDone.emotion)

    // An English user talking to the default (Chinese) character gets an English reply from the mock.
    const crossDone = doneOf(await collectEvents(charpipe.generate({ session: 'x', text: 'Good morning!' })))
    expect(crossDone.text).toContain('You just said "Good morning!".')
  })

  it('follows character.language when it is set, whatever the persona says', async () => {
    charpipe = await createCharpipe(config('zh'))
    const preview = await charpipe.inspect.preview({ session: 'en', character: 'mira', text: 'Hello!' })
    expect(systemOf(preview)).toMatch(/^你是Mira，正在和用户对话。/)
    expect(systemOf(preview)).toContain('开心、平静、难过')
  })

  it("ends a turn that failed before the model gave an emotion with the character's default_emotion", async () => {
    const provider = createFakeProvider({ replies: [{ events: [], error: new Error('no answer') }] })
    const base = makeConfig({
      character: { emotions: ['期待', '平静'], default_emotion: '期待', reply_format: 'plain' },
    })
    charpipe = await createCharpipe(base, {
      provider,
      // Parser options that leave the default out: the engine still knows the character's.
      parts: { replyParserOptionsFromConfig: () => ({ replyFormat: 'plain' }) },
    })
    const events = await collectEvents(charpipe.generate({ session: 's', text: '你好' }))
    expect(events.some((event) => event.type === 'llm_error')).toBe(true)
    expect(doneOf(events).emotion).toBe('期待')
  })
})
