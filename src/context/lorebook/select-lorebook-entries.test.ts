import { describe, expect, it } from 'vitest'
import { lorebookSchema } from '../../config/schema.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import { maxScanChars, minRegexScanChars, regexScanBudgetChars } from './compile-lorebook.js'
import { selectLorebookEntries } from './select-lorebook-entries.js'

function select(entries: { keys: string[]; content: string }[], text: string): string[] {
  const lorebook = lorebookSchema.parse({ entries })
  return selectLorebookEntries({ lorebook, text, countTokens: estimateTokens, maxRecursion: 0 }).entries.map(
    (entry) => entry.content,
  )
}

describe('selectLorebookEntries on long texts', () => {
  it('looks at the newest part of a text longer than the scan bound', () => {
    const entries = [
      { keys: ['oldword'], content: 'old' },
      { keys: ['newword'], content: 'new' },
    ]
    const text = `oldword ${'x'.repeat(maxScanChars)} newword`
    expect(select(entries, text)).toEqual(['new'])
    expect(select(entries, `oldword ${'x'.repeat(maxScanChars - 100)}`)).toEqual(['old'])
  })

  it('shares the regex budget among regex keys, each keeping at least its minimum window', () => {
    const many = Array.from({ length: 400 }, (_, index) => ({
      keys: [`/never${index}/`],
      content: `n${index}`,
    }))
    const window = Math.max(minRegexScanChars, Math.floor(regexScanBudgetChars / 401))
    const entries = [...many, { keys: ['/tar+get/'], content: 'found' }]
    expect(select(entries, `tarrget ${'y'.repeat(window - 20)}`)).toEqual(['found'])
    expect(select(entries, `tarrget ${'y'.repeat(window + 20)}`)).toEqual([])
    expect(select([{ keys: ['/tar+get/'], content: 'alone' }], `tarrget ${'y'.repeat(window + 20)}`)).toEqual(
      ['alone'],
    )
  })
})
