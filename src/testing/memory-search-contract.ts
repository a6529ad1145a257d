/**
 * The search part of the `MemoryStore` contract (`describeMemoryStoreContract`): what a query finds,
 * in which order, under each ranking rule, with and without vectors.
 */
import { describe, expect, it } from 'vitest'
import type { EmbeddingsClient } from '../memory/long-term/create-openai-embeddings.js'
import type { MemoryRankingOptions } from '../memory/long-term/memory-ranking.js'
import type { MemoryStore } from '../memory/types.js'

/** How a contract test opens a store (memory-store-contract.ts). */
export interface ContractStoreOptions {
  /** Which data: one name is one database (file, schema) for the whole test. */
  database: string
  now: () => number
  ranking?: Partial<MemoryRankingOptions>
  neighbourContext?: boolean
  keywordIndexMaxBytes?: number
  embeddings?: EmbeddingsClient
}

export const memoryContractStart = Date.UTC(2025, 0, 1)
const start = memoryContractStart
const day = 86_400_000

/** A fake embeddings model: words map to topics, so "kitten" and "cat" land close together. */
const topics: Record<string, number> = { cat: 0, kitten: 0, car: 1, engine: 1, tea: 2, coffee: 2 }
const topicEmbeddings: EmbeddingsClient = {
  model: 'topics-1',
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array([0.01, 0.01, 0.01, 0.01])
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        const topic = topics[word]
        if (topic !== undefined) vector[topic] = (vector[topic] ?? 0) + 1
      }
      return vector
    })
  },
}

export interface MemorySearchContractContext {
  /** A store for this test (see `ContractStoreOptions`); `database` defaults to the test's main data. */
  openStore: (overrides?: Partial<ContractStoreOptions>) => Promise<MemoryStore>
  /** Sets the stores' clock, in milliseconds since the epoch. */
  setClock: (time: number) => void
}

export function describeMemorySearchContract(context: MemorySearchContractContext): void {
  const { openStore, setClock } = context
  describe('memory search', () => {
    it('finds English memories by stemmed words with an OR query, best first', async () => {
      const store = await openStore()
      await store.add({ scope: 'a', text: 'I painted a sunrise over the lake last summer.' })
      await store.add({ scope: 'a', text: 'We went camping in the mountains with the kids.' })
      await store.add({ scope: 'a', text: 'My car broke down again on the highway.' })
      const hits = await store.search('What did she paint? Something about a lake and a rainbow', {
        scope: 'a',
        k: 3,
      })
      expect(hits[0]?.text).toBe('I painted a sunrise over the lake last summer.')
      expect(hits[0]?.kind).toBe('memory')
      expect(hits.map((hit) => hit.text)).not.toContain('My car broke down again on the highway.')
      for (let index = 1; index < hits.length; index++) {
        expect(hits[index - 1]?.score).toBeGreaterThanOrEqual(hits[index]?.score ?? 0)
      }
    })

    it('finds Chinese memories by segmented words', async () => {
      const store = await openStore()
      await store.add({ scope: 'a', text: '我上个月去了成都，吃了很多火锅。' })
      await store.add({ scope: 'a', text: '我的猫叫小白，它很喜欢睡觉。' })
      await store.add({ scope: 'a', text: '明天要去北京大学参加讲座。' })
      expect((await store.search('你的猫叫什么名字？', { scope: 'a', k: 1 }))[0]?.text).toContain('小白')
      expect((await store.search('成都好玩吗', { scope: 'a', k: 1 }))[0]?.text).toContain('火锅')
      expect((await store.search('北京', { scope: 'a', k: 1 }))[0]?.text).toContain('北京大学')
    })

    it('only searches the given scope, and leaves out memories of excluded turns', async () => {
      const store = await openStore()
      await store.add({ scope: 'alice', text: 'secret garden key under the mat', sourceTurn: 't1' })
      await store.add({ scope: 'alice', text: 'the garden gate squeaks', sourceTurn: 't2' })
      expect(await store.search('garden key', { scope: 'bob', k: 5 })).toEqual([])
      const hits = await store.search('garden', { scope: 'alice', k: 5, excludeSourceTurns: ['t1'] })
      expect(hits.map((hit) => hit.text)).toEqual(['the garden gate squeaks'])
    })

    it('returns nothing for punctuation, stopwords only, or k = 0', async () => {
      const store = await openStore()
      await store.add({ scope: 'a', text: 'what is the plan' })
      expect(await store.search('?!', { scope: 'a', k: 5 })).toEqual([])
      expect(await store.search('what is it', { scope: 'a', k: 5 })).toEqual([])
      expect(await store.search('plan', { scope: 'a', k: 0 })).toEqual([])
      expect(await store.search('plan', { scope: 'a', k: 5 })).toHaveLength(1)
    })

    it('prefers the newer of two equally relevant memories (time decay)', async () => {
      const store = await openStore({ ranking: { decayWeight: 0.5, halfLifeDays: 7 } })
      setClock(start + 100 * day)
      await store.add({ scope: 'a', text: 'my favourite band was Radiohead', time: start })
      await store.add({ scope: 'a', text: 'favourite band these days: Blur', time: start + 99 * day })
      const hits = await store.search('favourite band', { scope: 'a', k: 2 })
      expect(hits.map((hit) => hit.time)).toEqual([start + 99 * day, start])
      expect((hits[0]?.score ?? 0) / (hits[1]?.score ?? 1)).toBeGreaterThan(1.4)
    })

    it('boosts snippets with the query’s rare terms (keyword boost)', async () => {
      const search = async (keywordBoost: number) => {
        const store = await openStore({
          database: `boost-${keywordBoost}`,
          ranking: { keywordBoost, rareTermShare: 0.2, shortTerms: 0 },
          neighbourContext: false,
        })
        for (let index = 0; index < 4; index++)
          await store.add({ scope: 'a', text: `class schedule monday note ${index}` })
        for (let index = 0; index < 17; index++)
          await store.add({ scope: 'a', text: `unrelated filler line ${index}` })
        await store.add({ scope: 'a', text: 'class schedule monday changed' })
        await store.add({ scope: 'a', text: 'zumba was fun' })
        return (await store.search('zumba class schedule monday', { scope: 'a', k: 1 }))[0]?.text
      }
      expect(await search(0)).toMatch(/^class schedule monday/)
      expect(await search(2)).toBe('zumba was fun')
    })

    it('penalises very short snippets (length penalty, length prior)', async () => {
      const search = async (shortTerms: number, lengthPriorWeight?: number) => {
        const store = await openStore({
          database: `short-${shortTerms}-${lengthPriorWeight ?? 'default'}`,
          ranking: { shortTerms, ...(lengthPriorWeight === undefined ? {} : { lengthPriorWeight }) },
        })
        await store.add({ scope: 'a', text: 'pottery!' })
        await store.add({
          scope: 'a',
          text: 'I signed up for a pottery workshop downtown with my sister last weekend',
        })
        return (await store.search('pottery', { scope: 'a', k: 1 }))[0]?.text
      }
      // Both rules off, BM25 alone: the shorter memory says the word more densely.
      expect(await search(0, 0)).toBe('pottery!')
      expect(await search(5, 0)).toContain('workshop')
      // The length prior alone: a memory of one word says less than the one that tells something.
      expect(await search(0)).toContain('workshop')
    })

    it('fills a token budget and drops near-duplicates', async () => {
      const store = await openStore()
      await store.add({ scope: 'a', text: 'I love hiking in the Alps with my brother.' })
      await store.add({ scope: 'a', text: 'I love hiking in the Alps with my brother!!' })
      await store.add({ scope: 'a', text: 'Hiking is great exercise.' })
      const all = await store.search('hiking Alps', { scope: 'a', k: 5 })
      expect(all).toHaveLength(2)
      const budgeted = await store.search('hiking Alps', { scope: 'a', k: 5, tokenBudget: 8 })
      expect(budgeted.map((hit) => hit.text)).toEqual(['Hiking is great exercise.'])
    })

    it('finds a reply through the question before it, and the question through its reply (neighbours as context)', async () => {
      const store = await openStore()
      await store.add({ scope: 'a', text: 'Which instrument do you play?', speaker: 'Sam' })
      await store.add({ scope: 'a', text: 'The violin, since I was seven.', speaker: 'Eve' })
      await store.add({ scope: 'a', text: 'Nice. I mostly cook.', speaker: 'Sam' })
      const hits = await store.search('instrument', { scope: 'a', k: 3 })
      expect(hits.map((hit) => hit.text)).toContain('The violin, since I was seven.')
      expect(hits.map((hit) => hit.text)).not.toContain('Nice. I mostly cook.')
      const following = await store.search('violin', { scope: 'a', k: 3 })
      expect(following.map((hit) => hit.text)).toContain('Which instrument do you play?')
      const isolated = await openStore({ database: 'isolated', neighbourContext: false })
      await isolated.add({ scope: 'a', text: 'Which instrument do you play?' })
      await isolated.add({ scope: 'a', text: 'The violin, since I was seven.' })
      expect((await isolated.search('violin', { scope: 'a', k: 3 })).map((hit) => hit.text)).toEqual([
        'The violin, since I was seven.',
      ])
    })

    it('stores a huge memory whole and finds it by its opening words, not past the indexed length', async () => {
      const store = await openStore()
      const huge = `violin ${'这是一段很长的中文文本没有空格'.repeat(4_000)} omega`
      await store.add({ scope: 'a', text: 'Which instrument do you play?' })
      const added = await store.add({ scope: 'a', text: huge })
      await store.add({ scope: 'a', text: 'Nice. I mostly cook.' })
      expect((await store.get(added.id))?.text).toBe(huge)
      expect((await store.search('violin', { scope: 'a', k: 3 })).map((hit) => hit.id)).toContain(added.id)
      expect((await store.search('omega', { scope: 'a', k: 3 })).map((hit) => hit.id)).not.toContain(added.id)
    }, 30_000)

    it('finds by meaning what keywords miss when it has vectors, and by keywords when the endpoint fails', async () => {
      const store = await openStore({ embeddings: topicEmbeddings, neighbourContext: false })
      await store.add({ scope: 'a', text: 'We adopted a kitten in March.' })
      await store.add({ scope: 'a', text: 'The engine of my old car died.' })
      await store.add({ scope: 'a', text: 'I drink coffee every morning.' })
      expect((await store.search('Do you have a cat?', { scope: 'a', k: 1 }))[0]?.text).toBe(
        'We adopted a kitten in March.',
      )
      const keywordOnly = await openStore()
      expect(await keywordOnly.search('Do you have a cat?', { scope: 'a', k: 1 })).toEqual([])
      const failing: EmbeddingsClient = {
        model: 'topics-1',
        embed: async () => {
          throw new Error('endpoint down')
        },
      }
      const broken = await openStore({ embeddings: failing })
      await broken.add({ scope: 'a', text: 'My kitten sleeps all day.' })
      expect((await broken.search('kitten sleeps', { scope: 'a', k: 1 }))[0]?.text).toBe(
        'My kitten sleeps all day.',
      )
    })
  })
}
