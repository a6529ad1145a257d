import { describe, expect, it } from 'vitest'
import { compileLorebookPatterns } from '../../config/patterns/compile-lorebook-patterns.js'
import { lorebookSchema } from '../../config/schema.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import {
  maxScanChars,
  minRegexScanChars,
  regexRunOverheadChars,
  regexScanBudgetUnits,
} from './compile-lorebook.js'
import { maxLorebookOutputChars, selectLorebookEntries } from './select-lorebook-entries.js'

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
    const many = Array.from({ length: 150 }, (_, index) => ({
      keys: [`/never${index}/`],
      content: `n${index}`,
    }))
    const entries = [...many, { keys: ['/tar+get/'], content: 'found' }]
    const { instructions } = compileLorebookPatterns(lorebookSchema.parse({ entries }))
    const window = Math.max(
      minRegexScanChars,
      Math.floor(regexScanBudgetUnits / instructions) - regexRunOverheadChars,
    )
    expect(window).toBeGreaterThan(minRegexScanChars)
    expect(window).toBeLessThan(maxScanChars)
    expect(select(entries, `tarrget ${'y'.repeat(window - 20)}`)).toEqual(['found'])
    expect(select(entries, `tarrget ${'y'.repeat(window + 20)}`)).toEqual([])
    expect(select([{ keys: ['/tar+get/'], content: 'alone' }], `tarrget ${'y'.repeat(window + 20)}`)).toEqual(
      ['alone'],
    )
  })

  it("stops the pattern scans where the turn's budget of work runs out, the same keys every time", () => {
    // 50 keys of 903 instructions: within the lorebook's bounds, 45,150 instructions together.
    const entries = Array.from({ length: 50 }, (_, index) => ({
      keys: ['/(?:[a-z]?){450}[0-9]/'],
      content: `e${index}`,
    }))
    const lorebook = lorebookSchema.parse({ entries })
    expect(compileLorebookPatterns(lorebook).instructions).toBe(45_150)
    const text = `${'z'.repeat(5_000)}a1`
    // Each key reads the newest `minRegexScanChars` characters, and pays for setting its run up.
    const runs = Math.floor(regexScanBudgetUnits / (903 * (minRegexScanChars + regexRunOverheadChars)))
    for (let round = 0; round < 2; round++) {
      const result = selectLorebookEntries({ lorebook, text, countTokens: estimateTokens, maxRecursion: 0 })
      expect(result.entries.map((entry) => entry.content)).toEqual(
        entries.slice(0, runs).map((entry) => entry.content),
      )
      expect(result.skippedPatterns).toBe(50 - runs)
      expect(result.problems).toEqual([
        `the pattern keys' scan stopped at its budget of ${regexScanBudgetUnits} units (instructions × characters): ${50 - runs} pattern key runs left out, the last in entry order`,
      ])
    }
  })

  it('shares one budget among recursion rounds', () => {
    const patterns = 4
    const lorebook = lorebookSchema.parse({
      recursive: true,
      token_budget: 100_000,
      entries: Array.from({ length: 1 + patterns }, (_, index) => ({
        keys: [index === 0 ? 'start' : '/(?:[a-z]?){450}[0-9]/'],
        content: `${'z'.repeat(300)} a1`,
      })),
    })
    const result = selectLorebookEntries({
      lorebook,
      text: 'start',
      countTokens: estimateTokens,
      maxRecursion: 5,
    })
    const window = Math.max(
      minRegexScanChars,
      Math.floor(regexScanBudgetUnits / (patterns * 903)) - regexRunOverheadChars,
    )
    const runCost = (chars: number) => 903 * (Math.min(chars, window) + regexRunOverheadChars)
    // Round one runs the patterns over `start` and finds nothing; round two scans the first entry's
    // content, which every pattern would match, while the budget lasts.
    const runs = Math.floor((regexScanBudgetUnits - patterns * runCost(5)) / runCost(305))
    expect(runs).toBeGreaterThan(0)
    expect(runs).toBeLessThan(patterns)
    expect(result.entries).toHaveLength(1 + runs)
    // Rounds two and three each leave out the patterns the budget no longer covers.
    expect(result.skippedPatterns).toBe(2 * (patterns - runs))
  })

  it('counts and injects at most the output bound of entries, however large the token budget', () => {
    const lorebook = lorebookSchema.parse({
      token_budget: 1_000_000,
      entries: Array.from({ length: 2_000 }, (_, index) => ({
        constant: true,
        insertion_order: index,
        content: `${index} ${'w'.repeat(995)}`,
      })),
    })
    let countedChars = 0
    const countTokens = (text: string) => {
      countedChars += text.length
      return estimateTokens(text)
    }
    const result = selectLorebookEntries({ lorebook, text: '', countTokens, maxRecursion: 0 })
    const keptChars = result.entries.reduce((sum, entry) => sum + entry.content.length, 0)
    expect(countedChars).toBeLessThanOrEqual(maxLorebookOutputChars)
    expect(keptChars).toBe(countedChars)
    expect(result.entries).toHaveLength(Math.floor(maxLorebookOutputChars / 1_000))
    // The highest insertion orders are kept first, as with the token budget.
    expect(result.entries[0]!.insertion_order).toBe(2_000 - result.entries.length)
    expect(result.dropped).toHaveLength(2_000 - result.entries.length)
  })
})
