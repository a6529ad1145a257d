import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createSqliteMemoryStore } from './create-sqlite-memory-store.js'
import { findNamedSpeakers } from './find-named-speakers.js'
import { defaultMemoryRanking } from './memory-ranking.js'
import { MemoryTermIndex } from './memory-term-index.js'
import { createCandidateScorer } from './score-memory-candidates.js'

/** One memory per speaker, all saying the same words. */
function makePartition(speakers: string[][], kind: 'memory' | 'knowledge' = 'memory') {
  const partition = new MemoryTermIndex(kind)
  speakers.forEach((speaker, slot) => {
    partition.put(slot + 1, slot * 60_000, { speaker, body: ['paint', 'sunset'], context: [] })
  })
  return partition
}

describe('findNamedSpeakers', () => {
  it('returns the query words some candidate has as its speaker', () => {
    const partition = makePartition([['caroline'], ['melanie']])
    const candidates = [0, 1].map((slot) => ({ partition, slot }))
    expect(findNamedSpeakers(['caroline', 'paint'], candidates)).toEqual(['caroline'])
    expect(findNamedSpeakers(['paint', 'sunset'], candidates)).toEqual([])
  })

  it('ignores knowledge chunks and candidates the index lacks', () => {
    const knowledge = makePartition([['caroline']], 'knowledge')
    expect(findNamedSpeakers(['caroline'], [{ partition: knowledge, slot: 0 }, { slot: -1 }])).toEqual([])
  })

  it('finds exactly the query words among the candidates speakers', () => {
    const name = fc.constantFrom('ann', 'bob', 'cy', 'dee', 'eve')
    fc.assert(
      fc.property(
        fc.array(fc.array(name, { maxLength: 2 }), { maxLength: 6 }),
        fc.array(name),
        (speakers, terms) => {
          const partition = makePartition(speakers)
          const candidates = speakers.map((_, slot) => ({ partition, slot }))
          const spoken = new Set(speakers.flat())
          expect(new Set(findNamedSpeakers(terms, candidates))).toEqual(
            new Set(terms.filter((term) => spoken.has(term))),
          )
        },
      ),
    )
  })
})

describe('a query that names a speaker', () => {
  const ranking = { ...defaultMemoryRanking, otherSpeakerShare: 0.8 }

  it('scores a memory someone else said at otherSpeakerShare of the same memory said by the named speaker', () => {
    const partition = makePartition([['caroline'], ['melanie']])
    const scorer = createCandidateScorer({ ...ranking, decayWeight: 0 }, 0)
    const features = { rareTerms: new Map(), timeTerms: [], speakerTerms: ['caroline'] }
    const own = scorer.scoreIndexed(0.5, partition, 0, features)
    const other = scorer.scoreIndexed(0.5, partition, 1, features)
    expect(other / own).toBeCloseTo(0.8)
    const unnamed = { ...features, speakerTerms: [] }
    expect(scorer.scoreIndexed(0.5, partition, 1, unnamed)).toBe(own)
  })

  it('puts a memory the named speaker said before a better keyword match someone else said', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'named-speaker-'))
    const searchFirst = async (otherSpeakerShare: number) => {
      const store = createSqliteMemoryStore({
        path: join(folder, `${otherSpeakerShare}.db`),
        now: () => Date.UTC(2025, 0, 10),
        ranking: { otherSpeakerShare },
      })
      // Both speakers talk of other things too, so a name is not in every memory.
      const lines: [string, string][] = [
        ['Caroline', 'I finished painting a sunset last week'],
        ['Melanie', 'The kids and I went swimming at the beach'],
        ['Caroline', 'I want to adopt a child someday'],
        ['Melanie', 'We roasted marshmallows on the camping trip'],
        ['Caroline', 'The support group meets on Tuesdays'],
        ['Melanie', 'My pottery class starts in June'],
        ['Caroline', 'Counseling school applications are due soon'],
        ['Melanie', 'Our dog chewed my favourite shoes'],
        ['Caroline', 'My grandmother sent me a necklace'],
        ['Melanie', 'I ran a charity race for mental health'],
        ['Melanie', 'My painting of the sunset over the lake is done'],
        ['Caroline', 'I read a book about resilience'],
      ]
      let time = Date.UTC(2025, 0, 1)
      for (const [speaker, text] of lines) {
        await store.add({ scope: 'pair', text, speaker, time })
        time += 86_400_000
      }
      const [first] = await store.search('What sunset over the lake did Caroline paint?', {
        scope: 'pair',
        k: 3,
      })
      await store.close()
      return first?.speaker
    }
    try {
      expect(await searchFirst(1)).toBe('Melanie')
      expect(await searchFirst(0.8)).toBe('Caroline')
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('reads a Chinese speaker name in the query as it reads an English one', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'named-speaker-zh-'))
    const searchSpeakers = async (otherSpeakerShare: number) => {
      const store = createSqliteMemoryStore({
        path: join(folder, `${otherSpeakerShare}.db`),
        now: () => Date.UTC(2025, 0, 10),
        ranking: { otherSpeakerShare },
      })
      const lines: [string, string][] = [
        ['小明', '我上周画了一幅日落'],
        ['小红', '孩子们和我去海边游泳了'],
        ['小明', '我想以后领养一个孩子'],
        ['小红', '我们在露营时烤了棉花糖'],
        ['小明', '支持小组每周二见面'],
        ['小红', '我的陶艺课六月开始'],
        ['小明', '辅导学校的申请快截止了'],
        ['小红', '我家的狗咬坏了我最喜欢的鞋'],
        ['小明', '奶奶送了我一条项链'],
        ['小红', '我画的湖上日落完成了'],
        ['小明', '我读了一本关于坚韧的书'],
      ]
      let time = Date.UTC(2025, 0, 1)
      for (const [speaker, text] of lines) {
        await store.add({ scope: 'pair', text, speaker, time })
        time += 86_400_000
      }
      const hits = await store.search('小明画了什么日落?', { scope: 'pair', k: 3 })
      await store.close()
      return hits.map((hit) => hit.speaker)
    }
    try {
      expect(await searchSpeakers(1)).toContain('小红')
      expect(await searchSpeakers(0.8)).toEqual(['小明', '小明', '小明'])
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
