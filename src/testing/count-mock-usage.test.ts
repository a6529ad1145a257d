import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { maxRunCharacters, maxWindowCharacters } from '../context/tokens/create-token-counter.js'
import { countMockUsage, countUsageText } from './count-mock-usage.js'

describe('the mock model usage count', () => {
  it('hands the tokenizer no window or unbroken run past the bounds, so a long run costs linear time', () => {
    const handed: string[] = []
    const tokens = countUsageText('慢'.repeat(40_000), (text) => {
      handed.push(text)
      return encode(text).length
    })
    expect(Math.max(...handed.map((text) => text.length))).toBeLessThanOrEqual(maxRunCharacters)
    expect(handed.join('')).toBe('慢'.repeat(40_000))
    expect(tokens).toBeGreaterThan(0)
  })

  it('counts prose as the tokenizer does', async () => {
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(200)
    expect(prose.length).toBeGreaterThan(maxWindowCharacters)
    const usage = await countMockUsage({ messages: [{ role: 'user', content: prose }] }, 'Fine.')
    expect(usage).toEqual({ inputTokens: encode(prose).length, outputTokens: encode('Fine.').length })
  })
})
