import { describe, expect, it } from 'vitest'
import { MemoryTermIndex } from './memory-term-index.js'
import { defaultLocality, type LocalityCandidate, rerankByLocality } from './rerank-by-locality.js'

const minute = 60_000

/** A partition of `count` memories a minute apart, or with `times` given. */
function makePartition(count: number, times?: number[], kind: 'memory' | 'knowledge' = 'memory') {
  const partition = new MemoryTermIndex(kind)
  for (let slot = 0; slot < count; slot++)
    partition.put(slot + 1, times?.[slot] ?? slot * minute, { speaker: [], body: ['word'], context: [] })
  return partition
}

function makeCandidate(partition: MemoryTermIndex, slot: number, relevance: number, direct = true) {
  return { partition, slot, relevance, direct } satisfies LocalityCandidate
}

const nearOnly = { ...defaultLocality, supportWeight: 0, sittingWeight: 0 }
const supportOnly = { ...defaultLocality, nearShare: 0, sittingWeight: 0 }
const sittingOnly = { ...defaultLocality, nearShare: 0, supportWeight: 0 }

describe('rerankByLocality', () => {
  it('lifts a direct match two turns from the best match to half its relevance', () => {
    const partition = makePartition(30)
    const best = makeCandidate(partition, 10, 0.8)
    const near = makeCandidate(partition, 12, 0.1)
    const far = makeCandidate(partition, 20, 0.1)
    rerankByLocality([best, near, far], nearOnly)
    expect(best.relevance).toBe(0.8)
    expect(near.relevance).toBeCloseTo(0.4)
    expect(far.relevance).toBe(0.1)
  })

  it('never lifts a memory found only through its neighbours words, and adds no memory', () => {
    const partition = makePartition(30)
    const best = makeCandidate(partition, 10, 0.8)
    const contextOnly = makeCandidate(partition, 11, 0.1, false)
    const candidates = [best, contextOnly]
    rerankByLocality(candidates, nearOnly)
    expect(contextOnly.relevance).toBe(0.1)
    expect(candidates).toHaveLength(2)
  })

  it('does not reach across sittings or into the knowledge chunks', () => {
    const times = Array.from({ length: 30 }, (_, slot) =>
      slot <= 10 ? slot * minute : 86_400_000 + slot * minute,
    )
    const partition = makePartition(30, times)
    const best = makeCandidate(partition, 10, 0.8)
    const nextDay = makeCandidate(partition, 11, 0.1)
    rerankByLocality([best, nextDay], nearOnly)
    expect(nextDay.relevance).toBe(0.1)
    const knowledge = makePartition(30, undefined, 'knowledge')
    const chunk = makeCandidate(knowledge, 5, 0.8)
    const nextChunk = makeCandidate(knowledge, 6, 0.1)
    rerankByLocality([chunk, nextChunk], defaultLocality)
    expect([chunk.relevance, nextChunk.relevance]).toEqual([0.8, 0.1])
  })

  it('keeps the best candidate in a well-matched stretch and lowers a lone one', () => {
    const partition = makePartition(40)
    const best = makeCandidate(partition, 10, 1)
    const supported = makeCandidate(partition, 15, 0.5)
    const alone = makeCandidate(partition, 35, 0.5)
    rerankByLocality([best, supported, alone], supportOnly)
    // 0.7 + 0.3 × (its best neighbour's share of the top relevance).
    expect(best.relevance).toBeCloseTo(0.7 + 0.3 * 0.5)
    expect(supported.relevance).toBeCloseTo(0.5)
    expect(alone.relevance).toBeCloseTo(0.5 * 0.7)
  })

  it('keeps relevance in [0, 1] and leaves it alone when both rules are off', () => {
    const partition = makePartition(10)
    const candidates = [
      makeCandidate(partition, 1, 1),
      makeCandidate(partition, 2, 1),
      makeCandidate(partition, 3, 0),
    ]
    rerankByLocality(candidates, defaultLocality)
    for (const candidate of candidates) {
      expect(candidate.relevance).toBeGreaterThanOrEqual(0)
      expect(candidate.relevance).toBeLessThanOrEqual(1)
    }
    const untouched = [makeCandidate(partition, 1, 0.9), makeCandidate(partition, 2, 0.2)]
    rerankByLocality(untouched, { ...defaultLocality, nearShare: 0, supportWeight: 0 })
    expect(untouched.map((candidate) => candidate.relevance)).toEqual([0.9, 0.2])
  })

  it('ranks a match in the sitting that matched most above an equal match alone in another sitting', () => {
    const day = 86_400_000
    const times = Array.from({ length: 60 }, (_, slot) => (slot < 30 ? slot * minute : day + slot * minute))
    const partition = makePartition(60, times)
    // Day one: the camping talk, matched by several turns (far apart, so no support rule applies).
    const talk = [makeCandidate(partition, 2, 0.5), makeCandidate(partition, 15, 0.5)]
    const inTalk = makeCandidate(partition, 28, 0.3)
    const alone = makeCandidate(partition, 40, 0.3)
    rerankByLocality([...talk, inTalk, alone], sittingOnly)
    expect(inTalk.relevance).toBeCloseTo(0.3)
    expect(alone.relevance).toBeCloseTo(0.3 * (0.8 + (0.2 * 0.3) / 1.3))
    expect(inTalk.relevance).toBeGreaterThan(alone.relevance)
  })

  it('leaves candidates of one sitting as they are', () => {
    const partition = makePartition(30)
    const candidates = [makeCandidate(partition, 2, 0.5), makeCandidate(partition, 25, 0.2)]
    rerankByLocality(candidates, sittingOnly)
    expect(candidates.map((candidate) => candidate.relevance)).toEqual([0.5, 0.2])
  })
})
