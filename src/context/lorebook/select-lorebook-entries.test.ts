import { describe, expect, it } from 'vitest'
import { lorebookSchema } from '../../config/schema.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import { compileLorebookPatterns } from '../../config/patterns/compile-lorebook-patterns.js'
import { maxScanChars, minRegexScanChars, regexScanBudgetUnits } from './compile-lorebook.js'
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

  it('shares the regex budget among regex keys by their program sizes, each reading at least its minimum window', () => {
    const many = Array.from({ length: 400 }, (_, index) => ({
      keys: [`/never${index}/`],
      content: `n${index}`,
    }))
    const entries = [...many, { keys: ['/tar+get/'], content: 'found' }]
    const { instructions } = compileLorebookPatterns(lorebookSchema.parse({ entries }))
    const window = Math.max(minRegexScanChars, Math.floor(regexScanBudgetUnits / instructions))
    expect(window).toBeGreaterThan(minRegexScanChars)
    expect(window).toBeLessThan(maxScanChars)
    expect(select(entries, `tarrget ${'y'.repeat(window - 20)}`)).toEqual(['found'])
    expect(select(entries, `tarrget ${'y'.repeat(window + 20)}`)).toEqual([])
    expect(select([{ keys: ['/tar+get/'], content: 'alone' }], `tarrget ${'y'.repeat(window + 20)}`)).toEqual(
      ['alone'],
    )
  })
})
