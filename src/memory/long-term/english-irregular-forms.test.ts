import { describe, expect, it } from 'vitest'
import { findIrregularForms } from './english-irregular-forms.js'
import { segmentText } from './segment-text.js'

const termOf = (word: string) => segmentText(word)[0] as string

describe('findIrregularForms', () => {
  it.each([
    ['go', 'went'],
    ['went', 'go'],
    ['buy', 'bought'],
    ['took', 'taken'],
    ['child', 'children'],
    ['people', 'person'],
  ])('%s → %s, as the index stems them', (word, other) => {
    expect(findIrregularForms(termOf(word))).toContain(termOf(other))
  })

  it('gives nothing for a regular word or a form that is also a common unrelated word', () => {
    expect(findIrregularForms(termOf('paint'))).toEqual([])
    expect(findIrregularForms(termOf('left'))).toEqual([])
  })
})
