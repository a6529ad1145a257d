import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { capIndexedText } from './segment-text.js'
import {
  collectShingles,
  createHitSelector,
  measureJaccard,
  type SelectableHit,
  selectMemoryHits,
} from './select-memory-hits.js'

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

/** The selection as a whole-list greedy walk, written out on its own to check the selector by. */
function selectByDefinition(ranked: SelectableHit[], k: number, budget: number, threshold: number) {
  const taken: SelectableHit[] = []
  let left = budget
  for (const candidate of ranked) {
    if (taken.length === k) break
    if (candidate.tokens > left) continue
    const shingles = collectShingles(candidate.text)
    if (taken.some((other) => measureJaccard(collectShingles(other.text), shingles) > threshold)) continue
    taken.push(candidate)
    left -= candidate.tokens
  }
  return taken
}

describe('createHitSelector', () => {
  it('offered hits in batches of any size, selects what the whole-list walk selects', () => {
    // Texts from a few words, so near-duplicates and exact copies are common.
    const text = fc
      .array(fc.constantFrom('lamp', 'harbour', 'boat', '灯塔', '海风', 'x'), { minLength: 1, maxLength: 6 })
      .map((words) => words.join(' '))
    fc.assert(
      fc.property(
        fc.array(fc.record({ text, tokens: fc.integer({ min: 1, max: 40 }) }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 10 }),
        (ranked, k, budget, batchSizes) => {
          const options = { k, tokenBudget: budget, duplicateThreshold: 0.85 }
          const selector = createHitSelector(options)
          let offered = 0
          let open = true
          for (let batch = 0; open && offered < ranked.length; batch++) {
            const size = batchSizes[batch % batchSizes.length] as number
            for (const candidate of ranked.slice(offered, offered + size)) {
              open = selector.offer(candidate)
              if (!open) break
            }
            offered += size
          }
          const expected = selectByDefinition(ranked, k, budget, 0.85)
          expect(selector.selected).toEqual(expected)
          expect(selectMemoryHits(ranked, options)).toEqual(expected)
        },
      ),
    )
  })
})

describe('measureJaccard', () => {
  it('is 1 for identical texts and 0 for disjoint ones', () => {
    expect(measureJaccard(collectShingles('我喜欢猫'), collectShingles('我喜欢猫'))).toBe(1)
    expect(measureJaccard(collectShingles('abcdef'), collectShingles('uvwxyz'))).toBe(0)
  })
})

describe('collectShingles', () => {
  /** Three code points at a time, spelled out: what the slices must equal. */
  function collectByCodePoints(text: string): Set<string> {
    const folded = [
      ...capIndexedText(text)
        .normalize('NFKC')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ''),
    ]
    if (folded.length < 3) return new Set(folded.length ? [folded.join('')] : [])
    return new Set(folded.slice(0, -2).map((_, index) => folded.slice(index, index + 3).join('')))
  }

  it('cuts characters outside the BMP whole', () => {
    expect([...collectShingles('𠮷野家𠮷')]).toEqual(['𠮷野家', '野家𠮷'])
    expect([...collectShingles('a𠮷')]).toEqual(['a𠮷'])
  })

  it('equals three code points at a time, for any text', () => {
    const character = fc.oneof(
      fc.constantFrom('a', 'B', ' ', '，', '灯', '塔', '𠮷', '😀', 'ﬁ', '\uD800', '\uDC00', 'İ'),
      fc.string({ unit: 'binary', maxLength: 1 }),
    )
    fc.assert(
      fc.property(fc.array(character, { maxLength: 40 }), (characters) => {
        const text = characters.join('')
        expect(collectShingles(text)).toEqual(collectByCodePoints(text))
      }),
    )
  })
})
