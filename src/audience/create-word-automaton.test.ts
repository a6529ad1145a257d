import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createWordAutomatonBuilder } from './create-word-automaton.js'

interface Pattern {
  text: string
  kind: number
  index: number
}

const build = (patterns: readonly Pattern[]) => {
  const builder = createWordAutomatonBuilder({ kinds: 3 })
  for (const { text, kind, index } of patterns) builder.add(text, kind, index)
  return builder.build()
}

/** The plain way: every pattern of the kinds asked for looked for in the text. */
function findFirstByEachPattern(patterns: readonly Pattern[], text: string, kindMask: number): number {
  let first = Number.POSITIVE_INFINITY
  for (const pattern of patterns) {
    if (pattern.text && kindMask & (1 << pattern.kind) && text.includes(pattern.text)) {
      first = Math.min(first, pattern.index)
    }
  }
  return first
}

describe('createWordAutomatonBuilder', () => {
  it('finds patterns that end inside others, through fallbacks, by kind', () => {
    const patterns = [
      { text: 'abcx', kind: 0, index: 0 },
      { text: 'bcd', kind: 1, index: 1 },
      { text: 'cd', kind: 0, index: 2 },
      { text: '群', kind: 2, index: 3 },
    ]
    const automaton = build(patterns)
    expect(automaton.findFirst('xabcd', 0b011)).toBe(1)
    expect(automaton.findFirst('xabcd', 0b001)).toBe(2)
    expect(automaton.findFirst('xabcd', 0b100)).toBe(Number.POSITIVE_INFINITY)
    expect(automaton.findFirst('加群', 0b100)).toBe(3)
    expect(build([]).findFirst('anything', 0b111)).toBe(Number.POSITIVE_INFINITY)
  })

  it('finds what the plain search finds, over code units (surrogate halves included)', () => {
    const unit = fc.constantFrom(...'abcab加群', '😀', '\ud83d', '\ude00')
    const pattern = fc.record({
      text: fc.string({ unit, maxLength: 5 }),
      kind: fc.integer({ min: 0, max: 2 }),
      index: fc.nat({ max: 50 }),
    })
    fc.assert(
      fc.property(
        fc.array(pattern, { maxLength: 30 }),
        fc.string({ unit, maxLength: 30 }),
        fc.integer({ min: 0, max: 7 }),
        (patterns, text, kindMask) => {
          expect(build(patterns).findFirst(text, kindMask)).toBe(
            findFirstByEachPattern(patterns, text, kindMask),
          )
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('finds one long word among 2,000, and not a part of it', () => {
    const builder = createWordAutomatonBuilder({ kinds: 3 })
    const words = Array.from({ length: 2000 }, (_, index) => `${index}`.padStart(4, '0').repeat(25))
    for (const [index, word] of words.entries()) builder.add(word, index % 3, index)
    const automaton = builder.build()
    expect(automaton.findFirst(`chat ${words[1234]} chat`, 0b111)).toBe(1234)
    expect(automaton.findFirst(`chat ${words[1234]!.slice(1)} chat`, 0b111)).toBe(Number.POSITIVE_INFINITY)
  })
})
