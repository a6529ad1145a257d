import { describe, expect, it } from 'vitest'
import { findTimeReferenceTerms } from './find-time-reference-terms.js'
import { segmentText } from './segment-text.js'

describe('findTimeReferenceTerms', () => {
  it.each([
    'When did Melanie run the charity race?',
    'Since when has she played the violin?',
    'What year did they move in?',
    'Which month was the wedding?',
    'How long ago did he start?',
    '你什么时候去的北京？',
    '生日是哪天',
  ])('asks when: %s', (query) => {
    const terms = findTimeReferenceTerms(query)
    for (const word of ['yesterday', 'last', 'week', 'saturday', 'ago']) expect(terms).toContain(word)
    expect(terms).toContain('昨天')
  })

  it.each(['What did Melanie run?', 'Why did she say when?', '你喜欢什么？', ''])(
    'does not ask when: %s',
    (query) => {
      expect(findTimeReferenceTerms(query)).toEqual([])
    },
  )

  it('gives terms as the index holds them', () => {
    const terms = new Set(findTimeReferenceTerms('When?'))
    for (const term of segmentText('I went there last weekend, two months ago')) {
      if (['last', 'weekend', 'month', 'ago'].includes(term)) expect(terms.has(term)).toBe(true)
    }
  })
})
