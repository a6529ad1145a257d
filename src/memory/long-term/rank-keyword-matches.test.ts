import { describe, expect, it } from 'vitest'
import { MemoryTermIndex } from './memory-term-index.js'
import { rankKeywordMatches } from './rank-keyword-matches.js'

function fields(body: string) {
  return { speaker: [], body: body.split(' '), context: [] }
}

function rank(partition: MemoryTermIndex, lengthPrior?: { weight: number; pivot: number }) {
  return rankKeywordMatches({
    partitions: [partition],
    terms: ['pottery'],
    limit: 5,
    speakerWeight: 0.5,
    contextWeight: 0.5,
    ...(lengthPrior ? { lengthPrior } : {}),
  }).matches.map((match) => match.seq)
}

describe('rankKeywordMatches', () => {
  const memories = new MemoryTermIndex('memory')
  memories.put(1, 1, fields('pottery'))
  memories.put(2, 2, fields('signed pottery workshop downtown sister weekend glaze wheel'))
  memories.put(3, 3, fields('coffee'))

  it('ranks by BM25 alone without the length prior: the shorter memory says the word more densely', () => {
    expect(rank(memories)).toEqual([1, 2])
    expect(rank(memories, { weight: 0, pivot: 2 })).toEqual([1, 2])
  })

  it('puts the memory that tells something above one of a single word with the length prior', () => {
    expect(rank(memories, { weight: 0.5, pivot: 2 })).toEqual([2, 1])
  })

  it('leaves knowledge chunks out of the length prior', () => {
    const knowledge = new MemoryTermIndex('knowledge')
    knowledge.put(1, 1, fields('pottery'))
    knowledge.put(2, 2, fields('signed pottery workshop downtown sister weekend glaze wheel'))
    expect(rank(knowledge, { weight: 0.5, pivot: 2 })).toEqual([1, 2])
  })
})
