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
})
