import { describe, expect, it } from 'vitest'
import { findTermVariants, makeVariants } from './find-term-variants.js'
import { MemoryTermIndex } from './memory-term-index.js'
import { segmentText } from './segment-text.js'

/** The first term `segmentText` makes of a word. */
function termOf(word: string): string {
  return segmentText(word)[0] as string
}

describe('makeVariants', () => {
  it.each([
    ['adoption', 'adopt'],
    ['adopt', 'adoption'],
    ['healthy', 'health'],
    ['health', 'healthy'],
    ['broken', 'broke'],
    ['dance', 'dancer'],
    ['injured', 'injury'],
    ['develop', 'development'],
    ['artist', 'art'],
    ['happiness', 'happy'],
    ['creative', 'creation'],
  ])('%s → %s', (word, related) => {
    expect(makeVariants(termOf(word))).toContain(termOf(related))
  })

  it('never gives the term itself and leaves short words alone', () => {
    expect(makeVariants('adopt')).not.toContain('adopt')
    expect(makeVariants('bus')).toEqual(new Set())
  })
})

describe('findTermVariants', () => {
  const partition = new MemoryTermIndex('memory')
  const texts = ['We are adopting a puppy', 'The adoption agency called', 'A healthy breakfast']
  for (const [slot, text] of texts.entries())
    partition.put(slot + 1, 0, { speaker: [], body: segmentText(text), context: [] })

  it('keeps only the forms the memories hold, at the given weight', () => {
    const variants = findTermVariants({ terms: ['adopt'], partitions: [partition], weight: 0.5 })
    expect([...variants]).toEqual([['adoption', 0.5]])
    expect(findTermVariants({ terms: ['adoption'], partitions: [partition], weight: 0.5 })).toEqual(
      new Map([['adopt', 0.5]]),
    )
  })

  it('finds the irregular forms of a word: the past the memories tell for the bare form asked', () => {
    const told = new MemoryTermIndex('memory')
    const memories = [
      'I went to a support group yesterday',
      'The children loved the museum',
      'I bought new shoes',
    ]
    for (const [slot, text] of memories.entries())
      told.put(slot + 1, 0, { speaker: [], body: segmentText(text), context: [] })
    const asked = segmentText('When did Caroline go? What did the child buy?')
    const variants = findTermVariants({ terms: asked, partitions: [told], weight: 0.5 })
    expect(variants).toEqual(
      new Map([
        [termOf('went'), 0.5],
        [termOf('children'), 0.5],
        [termOf('bought'), 0.5],
      ]),
    )
  })

  it('adds no form the query already has, none for other scripts, and none at weight 0', () => {
    expect(
      findTermVariants({ terms: ['adopt', 'adoption'], partitions: [partition], weight: 0.5 }).size,
    ).toBe(0)
    expect(findTermVariants({ terms: ['蛋糕'], partitions: [partition], weight: 0.5 }).size).toBe(0)
    expect(findTermVariants({ terms: ['adopt'], partitions: [partition], weight: 0 }).size).toBe(0)
  })
})
