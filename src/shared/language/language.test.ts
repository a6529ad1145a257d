import { describe, expect, it } from 'vitest'
import { composeMockReply } from '../../providers/compose-mock-reply.js'
import { detectTextLanguage } from './detect-text-language.js'
import { findEmotionByName, showEmotionLabel, translateEmotionLabel } from './emotion-labels.js'
import { resolveCharacterLanguage, resolveUserName } from './resolve-character-language.js'

describe('detectTextLanguage', () => {
  it.each([
    ['你好，今天天气不错', 'zh'],
    ['A cheerful guide who knows every road of Eldoria.', 'en'],
    ['我是Eldoria的守护者，喜欢Python', 'zh'],
    ['Li Wei lives in Beijing and loves 火锅 more than anything else', 'en'],
    ['こんにちは', 'zh'],
    ['123 !!! …', undefined],
  ])('%s → %s', (text, language) => {
    expect(detectTextLanguage(text)).toBe(language)
  })
})

describe('resolveCharacterLanguage', () => {
  it('reads persona, greeting and scenario, then the name, and falls back to Chinese', () => {
    expect(resolveCharacterLanguage({ name: '小助手', persona: '' })).toBe('zh')
    expect(resolveCharacterLanguage({ name: 'Mira', persona: '' })).toBe('en')
    expect(resolveCharacterLanguage({ name: '小雪', persona: 'A quiet girl from the north.' })).toBe('en')
    expect(resolveCharacterLanguage({ name: 'Mira', persona: '', greeting: '欢迎光临！' })).toBe('zh')
    expect(resolveCharacterLanguage({ name: '', persona: '' })).toBe('zh')
    expect(resolveCharacterLanguage({ language: 'en', name: '小助手', persona: '温柔的猫娘' })).toBe('en')
  })

  it("names the user in the character's language unless user_name is set", () => {
    expect(resolveUserName({ name: '小助手', user_name: '' })).toBe('用户')
    expect(resolveUserName({ name: 'Mira', user_name: '' })).toBe('User')
    expect(resolveUserName({ name: 'Mira', user_name: 'Captain' })).toBe('Captain')
  })
})

describe('emotion labels', () => {
  const chinese = new Set(['开心', '平静', '害怕'])
  const english = new Set(['happy', 'calm'])

  it('shows an English character the English names, a Chinese one its labels as configured', () => {
    expect(showEmotionLabel('害怕', 'en')).toBe('afraid')
    expect(showEmotionLabel('期待', 'en')).toBe('期待')
    expect(showEmotionLabel('happy', 'zh')).toBe('happy')
  })

  it('finds the configured label from a name in either language, and nothing else', () => {
    expect(findEmotionByName('Afraid', chinese)).toBe('害怕')
    expect(findEmotionByName('开心', english)).toBe('happy')
    expect(findEmotionByName('sad', chinese)).toBeUndefined()
    expect(findEmotionByName('joyful', chinese)).toBeUndefined()
  })

  it('translates the default emotions for a page either way', () => {
    expect(translateEmotionLabel('开心', 'en')).toBe('happy')
    expect(translateEmotionLabel('happy', 'zh')).toBe('开心')
    expect(translateEmotionLabel('期待', 'en')).toBe('期待')
  })
})

describe('the builtin mock reply', () => {
  it('answers in the language of the input, the same input giving the same reply', () => {
    const english = composeMockReply({ userText: 'How are you today?', characterName: 'Mira' })
    expect(english.text).toContain('You just said "How are you today?".')
    expect(english.text).not.toMatch(/\p{Script=Han}/u)
    expect(['happy', 'calm', 'sad', 'angry', 'surprised', 'afraid', 'shy']).toContain(english.emotion)
    const chinese = composeMockReply({ userText: '你今天好吗', characterName: '小助手' })
    expect(chinese.text).toContain('你刚才说「你今天好吗」。我是小助手，这条回复来自内置的 mock 模型')
    expect(composeMockReply({ userText: '你今天好吗', characterName: '小助手' })).toEqual(chinese)
  })
})
