import { describe, expect, it } from 'vitest'
import { collectShingles, measureJaccard, selectMemoryHits } from './select-memory-hits.js'

const hit = (text: string, tokens = 10) => ({ text, tokens })

describe('selectMemoryHits', () => {
  it('takes the best k in order', () => {
    const ranked = [hit('alpha one'), hit('beta two'), hit('gamma three')]
    expect(selectMemoryHits(ranked, { k: 2, duplicateThreshold: 0.85 }).map((item) => item.text)).toEqual([
      'alpha one',
      'beta two',
    ])
  })

  it('fills the token budget, skipping what does not fit and taking smaller ones after it', () => {
    const ranked = [hit('first', 40), hit('too big', 70), hit('small', 20), hit('another', 50)]
    const selected = selectMemoryHits(ranked, { k: 5, tokenBudget: 60, duplicateThreshold: 0.85 })
    expect(selected.map((item) => item.text)).toEqual(['first', 'small'])
  })

  it('drops near-duplicates of a better snippet but keeps different ones', () => {
    const ranked = [
      hit('I adopted a puppy named Max last week!'),
      hit('i adopted a puppy named max last week'),
      hit('We went hiking in the Rockies.'),
    ]
    const selected = selectMemoryHits(ranked, { k: 3, duplicateThreshold: 0.85 })
    expect(selected.map((item) => item.text)).toEqual([
      'I adopted a puppy named Max last week!',
      'We went hiking in the Rockies.',
    ])
  })
})

describe('measureJaccard', () => {
  it('is 1 for identical texts and 0 for disjoint ones', () => {
    expect(measureJaccard(collectShingles('我喜欢猫'), collectShingles('我喜欢猫'))).toBe(1)
    expect(measureJaccard(collectShingles('abcdef'), collectShingles('uvwxyz'))).toBe(0)
  })
})
