import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import type { ChatMessage } from '../../shared/messages.js'
import {
  countTextInWindows,
  createTokenCounter,
  findOpenAIEncoding,
  maxExactCharacters,
  maxRunCharacters,
  maxWindowCharacters,
} from './create-token-counter.js'

const chinese = [
  '你好，今天天气怎么样？我想去公园散步。',
  '他说：“明天见！”然后转身离开了，留下我一个人站在雨里。',
  '人工智能正在改变我们的生活方式，从语音助手到自动驾驶汽车。',
  '《红楼梦》是中国古典四大名著之一，成书于清代。',
]
const english = [
  'The quick brown fox jumps over the lazy dog. It was a sunny day in the park.',
  'Please summarise the following meeting notes and list the action items for each person.',
  'Tokenizers split text into pieces; common words are usually a single token each.',
]

describe('token counting', () => {
  it('is exact for OpenAI models, with the encoding of the model', () => {
    const text = chinese.join('') + english.join(' ')
    expect(createTokenCounter({ apiType: 'openai', model: 'gpt-4o-mini' }).countText(text)).toBe(
      countO200k(text),
    )
    expect(createTokenCounter({ apiType: 'openai', model: 'gpt-4-turbo' }).countText(text)).toBe(
      countCl100k(text),
    )
    expect(findOpenAIEncoding('gpt-5')).toBe('o200k_base')
    expect(findOpenAIEncoding('deepseek-chat')).toBeUndefined()
  })

  it('the estimate never undercounts Chinese against either OpenAI encoding', () => {
    for (const text of chinese) {
      const estimate = estimateTokens(text)
      expect(estimate).toBeGreaterThanOrEqual(countO200k(text))
      expect(estimate).toBeGreaterThanOrEqual(countCl100k(text))
    }
  })

  it('the estimate of English stays within 0.9×-1.6× of o200k', () => {
    for (const text of english) {
      const ratio = estimateTokens(text) / countO200k(text)
      expect(ratio).toBeGreaterThanOrEqual(0.9)
      expect(ratio).toBeLessThanOrEqual(1.6)
    }
  })

  it('counts a message once and again only when its content is replaced', () => {
    let calls = 0
    const counter = createTokenCounter({ apiType: 'anthropic', model: 'claude-sonnet-5-5' })
    const message: ChatMessage = { role: 'user', content: '你好' }
    const spy = new Proxy(message, {
      get(target, key) {
        if (key === 'content') calls++
        return Reflect.get(target, key)
      },
    })
    const first = counter.countMessage(spy)
    counter.countMessage(spy)
    expect(counter.countMessage(spy)).toBe(first)
    message.content = '你好，世界'
    expect(counter.countMessage(spy)).toBeGreaterThan(first)
    // Three cache hits read content once each to compare; the misses read it to count.
    expect(calls).toBeLessThan(10)
  })

  it('counts images at a fixed cost and adds per-message overhead', () => {
    const counter = createTokenCounter({ apiType: 'openai', model: 'gpt-4o' })
    const text = counter.countMessage({ role: 'user', content: 'hi' })
    const withImage = counter.countMessage({
      role: 'user',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'image', url: 'https://example.test/a.png' },
      ],
    })
    expect(text).toBe(countO200k('hi') + 4)
    expect(withImage - text).toBe(800)
  })
})

describe('token counts cached per text', () => {
  const long = '这是一段很长的系统提示词，每一轮都会原样出现在上下文里。'.repeat(20)

  it('gives the same count for the same text, a new one for a changed text', () => {
    const counter = createTokenCounter({ apiType: 'anthropic', model: 'claude-sonnet-5-5' })
    const first = counter.countText(long)
    expect(counter.countText(long)).toBe(first)
    expect(counter.countText(`${long}`.slice(0, -1))).toBe(estimateTokens(long.slice(0, -1)))
    expect(counter.countText(`${long}再加一句话。`)).toBe(estimateTokens(`${long}再加一句话。`))
    expect(counter.countMessage({ role: 'user', content: long })).toBe(first + 4)
  })

  it('is kept per counter, so a counter for another model counts anew', () => {
    const estimated = createTokenCounter({ apiType: 'anthropic', model: 'claude-sonnet-5-5' })
    const exact = createTokenCounter({ apiType: 'openai', model: 'gpt-4o' })
    expect(estimated.countText(long)).toBe(estimateTokens(long))
    // An unbroken run is tokenized in bounded pieces: at most a token off per cut.
    expect(Math.abs(exact.countText(long) - countO200k(long))).toBeLessThanOrEqual(
      long.length / maxRunCharacters,
    )
    expect(estimated.countText(long)).not.toBe(exact.countText(long))
  })
})

describe('bounded token counting', () => {
  const runs = {
    'one unbroken run': 'a'.repeat(300_000),
    'Chinese without spaces': '这是一段很长的中文文本没有空格'.repeat(20_000),
    'only spaces': ' '.repeat(300_000),
    'emoji run': '😀'.repeat(100_000),
    prose: 'The quick brown fox jumps over the lazy dog. '.repeat(7_000),
  }

  it.each(Object.entries(runs))(
    'hands the tokenizer bounded windows that cover %s exactly',
    (_name, text) => {
      const pieces: string[] = []
      countTextInWindows(text, (piece) => {
        pieces.push(piece)
        return 1
      })
      expect(pieces.join('')).toBe(text)
      expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(maxWindowCharacters + 1)
      for (const piece of pieces) expect(piece.length === 0 || /^[\uDC00-\uDFFF]/.test(piece)).toBe(false)
    },
  )

  it('counts prose in windows exactly as the whole text', () => {
    const text = english.join(' ').repeat(40)
    expect(text.length).toBeGreaterThan(maxWindowCharacters * 3)
    expect(countTextInWindows(text, countO200k)).toBe(countO200k(text))
  })

  it('estimates a text past the exact limit instead of tokenizing it', () => {
    const counter = createTokenCounter({ apiType: 'openai', model: 'gpt-4o' })
    const text = '你'.repeat(maxExactCharacters + 1)
    expect(counter.countText(text)).toBe(estimateTokens(text))
    // A megabyte of one run is counted at all (the tokenizer alone would take minutes).
    expect(counter.countText('a'.repeat(1_000_000))).toBe(estimateTokens('a'.repeat(1_000_000)))
  }, 10_000)
})
