import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createKeywordScanner } from './create-keyword-scanner.js'

function found(keywords: string[], text: string): number[] {
  const ids: number[] = []
  createKeywordScanner(keywords).scan(text, (id) => ids.push(id))
  return ids.sort((a, b) => a - b)
}

describe('createKeywordScanner', () => {
  it('reports each keyword that occurs once, overlapping and nested ones included', () => {
    expect(found(['he', 'she', 'his', 'hers', 'x'], 'ushers and she')).toEqual([0, 1, 3])
    expect(found(['a', 'aa', 'aaa', 'b'], 'aaaaaaaa')).toEqual([0, 1, 2])
    expect(found(['龙', '巨龙', '龙王'], '山里住着巨龙')).toEqual([0, 1])
    expect(found(['same', 'same'], 'the same')).toEqual([0, 1])
    expect(found([], 'anything')).toEqual([])
  })

  it('finds what a plain substring search finds, for any keywords and text', () => {
    const letters = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '龙'), maxLength: 40 })
    fc.assert(
      fc.property(
        fc.array(
          letters.filter((key) => key.length > 0),
          { maxLength: 12 },
        ),
        letters,
        (keys, text) => {
          const expected = keys.flatMap((key, id) => (text.includes(key) ? [id] : []))
          expect(found(keys, text)).toEqual(expected)
        },
      ),
      { numRuns: 500 },
    )
  })
})
