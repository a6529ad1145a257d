import { describe, expect, it } from 'vitest'
import { normalizePreflightText, preflightKeyOf } from './normalize-preflight-text.js'

describe('normalizePreflightText', () => {
  it.each([
    ['今天天气怎么样', '今天天气，怎么样？'],
    ['Hello world', 'hello, WORLD!'],
    ['ＡＢＣ１２３', 'abc 123'],
    ['你好 我是小明', '你好！我是小明。'],
    ['「引号」', '引号'],
  ])('%s matches %s', (early, final) => {
    expect(normalizePreflightText(early)).toBe(normalizePreflightText(final))
  })

  it.each([
    ['明天去哪里', '后天去哪里'],
    ['1+1', '11'],
    ['我想', '我想去'],
  ])('%s does not match %s', (early, final) => {
    expect(normalizePreflightText(early)).not.toBe(normalizePreflightText(final))
  })

  it('a different image or speaker is another input', () => {
    const base = { session: 's', text: '看这个' }
    expect(preflightKeyOf(base)).toBe(preflightKeyOf({ ...base, text: '看这个。', emotion: 'happy' }))
    expect(preflightKeyOf(base)).not.toBe(preflightKeyOf({ ...base, images: ['https://example.com/a.png'] }))
    expect(preflightKeyOf(base)).not.toBe(preflightKeyOf({ ...base, speaker: { id: 'u2' } }))
  })
})
