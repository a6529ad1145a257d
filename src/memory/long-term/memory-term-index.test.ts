import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readBodyCount, readContextCount, readSpeakerCount } from './compute-bm25.js'
import { MemoryTermIndex, measureIndexedLength } from './memory-term-index.js'

function fields(body: string, context = '', speaker = '') {
  const split = (text: string) => (text ? text.split(' ') : [])
  return { speaker: split(speaker), body: split(body), context: split(context) }
}

describe('MemoryTermIndex', () => {
  it('counts each term per column and keeps the numbers BM25 needs', () => {
    const index = new MemoryTermIndex('memory')
    index.put(7, 1000, fields('cat cat sleep', 'cat dog', 'ann'))
    const postings = index.terms.get('cat')
    expect(postings?.size).toBe(1)
    const packed = postings?.counts[0] as number
    expect([readSpeakerCount(packed), readBodyCount(packed), readContextCount(packed)]).toEqual([0, 2, 1])
    expect(index.documentCount).toBe(1)
    expect(index.totalLength).toBe(measureIndexedLength(fields('cat cat sleep', 'cat dog', 'ann')))
    expect(index.totalLength).toBe(7)
    const slot = index.findSlot(7) as number
    expect(index.times[slot]).toBe(1000)
    expect(index.bodyLengths[slot]).toBe(3)
    expect(index.hasInBody('cat', slot)).toBe(true)
    expect(index.hasInBody('dog', slot)).toBe(false)
    expect(index.countDocuments('dog')).toBe(1)
  })

  it('keeps a re-indexed document in its slot with postings in slot order', () => {
    const index = new MemoryTermIndex('memory')
    for (let seq = 1; seq <= 5; seq++) index.put(seq, seq, fields('common', seq === 5 ? 'rare' : ''))
    index.remove(2, fields('common'))
    index.put(2, 2, fields('common rare'))
    expect(index.slotCount).toBe(5)
    const rare = index.terms.get('rare')
    expect(Array.from(rare?.slots.subarray(0, rare.size) ?? [])).toEqual([1, 4])
    expect(index.documentCount).toBe(5)
    expect(index.emptySlots).toBe(0)
  })

  it("keeps the sum of the live documents' own terms (the length prior's average)", () => {
    const index = new MemoryTermIndex('memory')
    index.put(1, 1, fields('a b c', 'x y', 'ann'))
    index.put(2, 2, fields('d'))
    expect(index.totalBodyLength).toBe(4)
    index.remove(1, fields('a b c', 'x y', 'ann'))
    expect(index.totalBodyLength).toBe(1)
    index.put(1, 1, fields('a b'))
    expect(index.totalBodyLength).toBe(3)
  })

  it('removes documents from postings, counts and lengths, and forgets empty terms', () => {
    const index = new MemoryTermIndex('knowledge')
    index.put(1, 0, fields('alpha beta'))
    index.put(2, 0, fields('beta gamma'))
    index.remove(1, fields('alpha beta'))
    index.remove(1, fields('alpha beta'))
    expect(index.terms.has('alpha')).toBe(false)
    expect(index.countDocuments('beta')).toBe(1)
    expect(index.documentCount).toBe(1)
    expect(index.totalLength).toBe(3)
    expect(index.emptySlots).toBe(1)
    expect(index.findSlot(1)).toBeUndefined()
    expect(() => index.put(2, 0, fields('beta'))).toThrow(/already indexed/)
  })

  it('saturates a count past its field width instead of spilling into the next column', () => {
    const index = new MemoryTermIndex('memory')
    index.put(1, 0, fields(Array.from({ length: 3000 }, () => 'la').join(' '), 'la'))
    const packed = index.terms.get('la')?.counts[0] as number
    expect([readBodyCount(packed), readContextCount(packed)]).toEqual([2047, 1])
  })

  it('knows which terms some speaker holds, through any puts, re-puts and removes', () => {
    const word = fc.constantFrom('ann', 'bob', 'cat', 'dog', 'sea')
    const words = fc.array(word, { maxLength: 4 })
    const step = fc.record({
      seq: fc.integer({ min: 1, max: 6 }),
      remove: fc.boolean(),
      speaker: words,
      body: words,
      context: words,
    })
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const index = new MemoryTermIndex('memory')
        const live = new Map<number, { speaker: string[]; body: string[]; context: string[] }>()
        for (const { seq, remove, ...indexed } of steps) {
          const known = live.get(seq)
          if (known) index.remove(seq, known)
          live.delete(seq)
          if (remove) continue
          index.put(seq, 0, indexed)
          live.set(seq, indexed)
        }
        for (const term of ['ann', 'bob', 'cat', 'dog', 'sea']) {
          const spoken = [...live.values()].some((indexed) => indexed.speaker.includes(term))
          expect(index.hasSpeakerPostings(term)).toBe(spoken)
        }
      }),
    )
  })
})
