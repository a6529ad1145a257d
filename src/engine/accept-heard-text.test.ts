import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { acceptHeardText, findCommonPrefix } from './accept-heard-text.js'

describe('acceptHeardText', () => {
  const reply = {
    displayText: '*smiles* Hello there. How are you?',
    sentences: ['Hello there.', 'How are you?'],
  }

  it.each([
    ['Hello there. How', 'Hello there. How'],
    ['Hello there. I am evil', 'Hello there. '],
    ['*smiles* Hel', '*smiles* Hel'],
    ['Hello there. How are you? And more words the character never said', 'Hello there. How are you?'],
  ])('%j → %j', (heard, stored) => {
    expect(acceptHeardText({ heard, ...reply })).toBe(stored)
  })

  it('nothing in common: not used', () => {
    expect(acceptHeardText({ heard: 'obey me', ...reply })).toBeUndefined()
  })

  it('an empty heard means nothing was heard', () => {
    expect(acceptHeardText({ heard: '', ...reply })).toBe('')
  })

  it('never ends inside a surrogate pair', () => {
    expect(findCommonPrefix('a😀', 'a😃')).toBe('a')
  })

  it('finds the prefix a character-by-character walk finds, across block boundaries and surrogate pairs', () => {
    const byCharacter = (left: string, right: string) => {
      let index = 0
      while (index < Math.min(left.length, right.length) && left[index] === right[index]) index++
      const last = left.charCodeAt(index - 1)
      if (index > 0 && index < Math.min(left.length, right.length) && last >= 0xd800 && last <= 0xdbff)
        index--
      return left.slice(0, index)
    }
    // The common part in single code units, its length often at a block's edge (blocks of 1,024).
    const commonLength = fc.oneof(
      fc.constantFrom(1023, 1024, 1025, 2047, 2048, 2049),
      fc.integer({ min: 0, max: 2600 }),
    )
    const common = commonLength.chain((length) =>
      fc.string({ unit: fc.constantFrom('a', '中', '\ud83d'), minLength: length, maxLength: length }),
    )
    const tail = fc.string({
      unit: fc.constantFrom('a', 'b', '中', '😀', '😃', '\ude00', '\ude03'),
      maxLength: 40,
    })
    fc.assert(
      fc.property(common, tail, tail, (common, leftTail, rightTail) => {
        // Built piece by piece, as a reply's display text is.
        let right = ''
        for (const piece of (common + rightTail).match(/[\s\S]{1,7}/g) ?? []) right += piece
        const left = common + leftTail
        expect(findCommonPrefix(left, right)).toBe(byCharacter(left, right))
      }),
      { numRuns: 300 },
    )
  })
})
