import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CharpipeError } from '../../shared/errors.js'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import type { MemoryStore } from '../types.js'
import { type CreateSqliteMemoryStoreOptions, createSqliteMemoryStore } from './create-sqlite-memory-store.js'
import { maxIndexedCharacters } from './segment-text.js'
import { maxMemoryTextCharacters } from './validate-memory-input.js'

const day = 86_400_000
const start = Date.UTC(2025, 0, 1)
let folder: string
let clock: number
const stores: MemoryStore[] = []

function openStore(overrides: Partial<CreateSqliteMemoryStoreOptions> = {}): MemoryStore {
  const store = createSqliteMemoryStore({ path: join(folder, 'charpipe.db'), now: () => clock, ...overrides })
  stores.push(store)
  return store
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'memory-store-'))
  clock = start
})

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('memory operations', () => {
  it('adds and gets a memory with every field', async () => {
    const store = openStore()
    const added = await store.add({
      scope: 'alice',
      text: 'Alice adopted a cat named Miso.',
      speaker: 'Alice',
      time: start - day,
      metadata: { mood: 'happy', tags: ['pets'] },
      sourceTurn: 'turn-1',
    })
    expect(added.id).toMatch(/^mem_/)
    expect(await store.get(added.id)).toEqual({
      id: added.id,
      scope: 'alice',
      text: 'Alice adopted a cat named Miso.',
      speaker: 'Alice',
      time: start - day,
      metadata: { mood: 'happy', tags: ['pets'] },
      sourceTurn: 'turn-1',
    })
    expect((await store.add({ scope: 'alice', text: 'no time given' })).time).toBe(start)
    expect(await store.get('mem_missing')).toBeUndefined()
  })

  it('lists newest first, by scope, with paging', async () => {
    const store = openStore()
    for (const text of ['one', 'two', 'three']) await store.add({ scope: 'a', text })
    await store.add({ scope: 'b', text: 'other scope' })
    expect((await store.list({ scope: 'a' })).map((record) => record.text)).toEqual(['three', 'two', 'one'])
    expect((await store.list({ scope: 'a', limit: 1, offset: 1 })).map((record) => record.text)).toEqual([
      'two',
    ])
    expect(await store.list({})).toHaveLength(4)
  })

  it('updates text, speaker, time and metadata, and re-indexes the text', async () => {
    const store = openStore()
    const added = await store.add({ scope: 'a', text: 'I live in Berlin' })
    const updated = await store.update(added.id, {
      text: 'I moved to Lisbon',
      speaker: 'Bob',
      metadata: { v: 2 },
    })
    expect(updated).toMatchObject({
      id: added.id,
      text: 'I moved to Lisbon',
      speaker: 'Bob',
      metadata: { v: 2 },
    })
    expect(await store.search('Berlin', { scope: 'a', k: 5 })).toEqual([])
    expect((await store.search('Lisbon', { scope: 'a', k: 5 })).map((hit) => hit.id)).toEqual([added.id])
    expect(await store.update('mem_missing', { text: 'x' })).toBeUndefined()
  })

  it('deletes one memory and all of a scope, leaving other scopes', async () => {
    const store = openStore()
    const first = await store.add({ scope: 'a', text: 'likes tea' })
    await store.add({ scope: 'a', text: 'likes coffee' })
    await store.add({ scope: 'b', text: 'likes tea too' })
    expect(await store.delete(first.id)).toBe(true)
    expect(await store.delete(first.id)).toBe(false)
    expect(await store.get(first.id)).toBeUndefined()
    expect(await store.deleteAll('a')).toBe(1)
    expect(await store.list({ scope: 'a' })).toEqual([])
    expect((await store.search('tea', { scope: 'b', k: 5 })).map((hit) => hit.text)).toEqual([
      'likes tea too',
    ])
  })

  it('keeps the change history of a memory: add, update, delete with old and new text', async () => {
    const store = openStore()
    const added = await store.add({ scope: 'a', text: 'favourite colour is blue' })
    clock += 1000
    await store.update(added.id, { text: 'favourite colour is green' })
    clock += 1000
    await store.delete(added.id)
    const history = await store.history(added.id)
    expect(history.map(({ event, oldText, newText, time }) => ({ event, oldText, newText, time }))).toEqual([
      { event: 'add', oldText: undefined, newText: 'favourite colour is blue', time: start },
      {
        event: 'update',
        oldText: 'favourite colour is blue',
        newText: 'favourite colour is green',
        time: start + 1000,
      },
      { event: 'delete', oldText: 'favourite colour is green', newText: undefined, time: start + 2000 },
    ])
    expect(history.every((change) => change.memoryId === added.id)).toBe(true)
    const other = await store.add({ scope: 'z', text: 'bulk' })
    await store.deleteAll('z')
    expect((await store.history(other.id)).map((change) => change.event)).toEqual(['add', 'delete'])
  })

  it('survives reopening the file, beside other tables, in WAL mode with its own version table', async () => {
    const path = join(folder, 'charpipe.db')
    const first = openStore({ path })
    const added = await first.add({ scope: 'a', text: '我喜欢吃火锅' })
    await first.close()
    const second = openStore({ path })
    expect((await second.search('火锅', { scope: 'a', k: 3 })).map((hit) => hit.id)).toEqual([added.id])
    const database = new Database(path, { readonly: true })
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(database.prepare('SELECT max(version) AS v FROM memory_schema_version').get()).toEqual({ v: 2 })
    expect(database.pragma('user_version', { simple: true })).toBe(0)
    database.close()
  })

  it('rejects bad input with an error naming the field', async () => {
    const store = openStore()
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => store.add({ scope: 'a', text: '  ' }), /text must be a non-empty string/],
      [() => store.add({ scope: 1 as unknown as string, text: 'x' }), /scope must be a string/],
      [
        () => store.add({ scope: 'a', text: 'x', metadata: [] as unknown as Record<string, unknown> }),
        /metadata/,
      ],
      [() => store.add({ scope: 'a', text: 'x', time: Number.NaN }), /time/],
      [() => store.update('x', { speaker: 5 as unknown as string }), /speaker/],
      [() => store.search('x', { scope: 'a', k: -1 }), /k must be/],
      [() => store.search('x', { scope: 'a', k: 3, tokenBudget: -2 }), /tokenBudget/],
      [() => store.list({ limit: -1 }), /limit/],
      [() => store.addKnowledge({ name: '', text: 'x' }), /name/],
      [() => store.addKnowledge({ name: 'doc', text: '' }), /has no text/],
    ]
    for (const [call, message] of cases) {
      const error = await call().catch((caught: unknown) => caught)
      expect(CharpipeError.isInstance(error), String(message)).toBe(true)
      expect((error as Error).message).toMatch(message)
    }
  })
})

describe('memory search', () => {
  it('finds English memories by stemmed words with an OR query, best first', async () => {
    const store = openStore()
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
    const store = openStore()
    await store.add({ scope: 'a', text: '我上个月去了成都，吃了很多火锅。' })
    await store.add({ scope: 'a', text: '我的猫叫小白，它很喜欢睡觉。' })
    await store.add({ scope: 'a', text: '明天要去北京大学参加讲座。' })
    expect((await store.search('你的猫叫什么名字？', { scope: 'a', k: 1 }))[0]?.text).toContain('小白')
    expect((await store.search('成都好玩吗', { scope: 'a', k: 1 }))[0]?.text).toContain('火锅')
    expect((await store.search('北京', { scope: 'a', k: 1 }))[0]?.text).toContain('北京大学')
  })

  it('only searches the given scope', async () => {
    const store = openStore()
    await store.add({ scope: 'alice', text: 'secret garden key under the mat' })
    expect(await store.search('garden key', { scope: 'bob', k: 5 })).toEqual([])
  })

  it('returns nothing for punctuation, stopwords only, or k = 0', async () => {
    const store = openStore()
    await store.add({ scope: 'a', text: 'what is the plan' })
    expect(await store.search('?!', { scope: 'a', k: 5 })).toEqual([])
    expect(await store.search('what is it', { scope: 'a', k: 5 })).toEqual([])
    expect(await store.search('plan', { scope: 'a', k: 0 })).toEqual([])
    expect(await store.search('plan', { scope: 'a', k: 5 })).toHaveLength(1)
  })

  it('prefers the newer of two equally relevant memories (time decay)', async () => {
    const store = openStore({ ranking: { decayWeight: 0.5, halfLifeDays: 7 } })
    clock = start + 100 * day
    await store.add({ scope: 'a', text: 'my favourite band was Radiohead', time: start })
    await store.add({ scope: 'a', text: 'favourite band these days: Blur', time: start + 99 * day })
    const hits = await store.search('favourite band', { scope: 'a', k: 2 })
    expect(hits.map((hit) => hit.time)).toEqual([start + 99 * day, start])
    expect((hits[0]?.score ?? 0) / (hits[1]?.score ?? 1)).toBeGreaterThan(1.4)
  })

  it('boosts snippets with the query’s rare terms (keyword boost)', async () => {
    const search = async (keywordBoost: number) => {
      const store = openStore({
        path: join(folder, `boost-${keywordBoost}.db`),
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

  it('penalises very short snippets (length penalty)', async () => {
    const search = async (shortTerms: number) => {
      const store = openStore({ path: join(folder, `short-${shortTerms}.db`), ranking: { shortTerms } })
      await store.add({ scope: 'a', text: 'pottery!' })
      await store.add({
        scope: 'a',
        text: 'I signed up for a pottery workshop downtown with my sister last weekend',
      })
      return (await store.search('pottery', { scope: 'a', k: 1 }))[0]?.text
    }
    expect(await search(0)).toBe('pottery!')
    expect(await search(5)).toContain('workshop')
  })

  it('fills a token budget and drops near-duplicates', async () => {
    const store = openStore()
    await store.add({ scope: 'a', text: 'I love hiking in the Alps with my brother.' })
    await store.add({ scope: 'a', text: 'I love hiking in the Alps with my brother!!' })
    await store.add({ scope: 'a', text: 'Hiking is great exercise.' })
    const all = await store.search('hiking Alps', { scope: 'a', k: 5 })
    expect(all).toHaveLength(2)
    const budgeted = await store.search('hiking Alps', { scope: 'a', k: 5, tokenBudget: 8 })
    expect(budgeted.map((hit) => hit.text)).toEqual(['Hiking is great exercise.'])
  })

  it('finds a reply through the question before it, and the question through its reply (neighbours as context)', async () => {
    const store = openStore()
    await store.add({ scope: 'a', text: 'Which instrument do you play?', speaker: 'Sam' })
    await store.add({ scope: 'a', text: 'The violin, since I was seven.', speaker: 'Eve' })
    await store.add({ scope: 'a', text: 'Nice. I mostly cook.', speaker: 'Sam' })
    const hits = await store.search('instrument', { scope: 'a', k: 3 })
    expect(hits.map((hit) => hit.text)).toContain('The violin, since I was seven.')
    expect(hits.map((hit) => hit.text)).not.toContain('Nice. I mostly cook.')
    // …and the question through the answer after it.
    const following = await store.search('violin', { scope: 'a', k: 3 })
    expect(following.map((hit) => hit.text)).toContain('Which instrument do you play?')
    const isolated = openStore({ path: join(folder, 'isolated.db'), neighbourContext: false })
    await isolated.add({ scope: 'a', text: 'Which instrument do you play?' })
    await isolated.add({ scope: 'a', text: 'The violin, since I was seven.' })
    expect((await isolated.search('violin', { scope: 'a', k: 3 })).map((hit) => hit.text)).toEqual([
      'The violin, since I was seven.',
    ])
  })
})

describe('a huge memory', () => {
  it('is stored whole, indexed and kept as context only up to the cap, and found by its opening words', async () => {
    const store = openStore()
    const huge = `violin ${'这是一段很长的中文文本没有空格'.repeat(4_000)} omega`
    expect(huge.length).toBeLessThanOrEqual(maxMemoryTextCharacters)
    await expect(store.add({ scope: 'a', text: 'x'.repeat(maxMemoryTextCharacters + 1) })).rejects.toThrow(
      /memory add: text is 65537 characters, more than the 65536/,
    )
    await store.add({ scope: 'a', text: 'Which instrument do you play?' })
    const added = await store.add({ scope: 'a', text: huge })
    await store.add({ scope: 'a', text: 'Nice. I mostly cook.' })
    expect((await store.get(added.id))?.text).toBe(huge)
    expect((await store.search('violin', { scope: 'a', k: 3 })).map((hit) => hit.id)).toContain(added.id)
    // Past the indexed length nothing is segmented: the word at its end is not found.
    expect((await store.search('omega', { scope: 'a', k: 3 })).map((hit) => hit.id)).not.toContain(added.id)
    const database = new Database(join(folder, 'charpipe.db'), { readonly: true })
    const rows = database
      .prepare('SELECT text, context, token_count FROM memory_items ORDER BY seq')
      .all() as {
      text: string
      context: string
      token_count: number
    }[]
    database.close()
    for (const row of rows) expect(row.context.length).toBeLessThanOrEqual(maxIndexedCharacters + 1)
    expect(rows[1]?.token_count).toBe(estimateTokens(huge))
  }, 30_000)
})

describe('knowledge base', () => {
  it('chunks documents, lists and removes them, and retrieves chunks beside memories', async () => {
    const store = openStore()
    const document = await store.addKnowledge({
      name: 'shop.md',
      text: '# Shop\n\n## Opening hours\n\nWe open at 9 and close at 18.\n\n## Returns\n\nReturns within 30 days with a receipt.',
    })
    expect(document).toMatchObject({ name: 'shop.md', chunks: 2, createdAt: start })
    expect(await store.listKnowledge()).toEqual([document])
    await store.add({ scope: 'a', text: 'The user asked about returns last week.' })
    const hits = await store.search('returns receipt', { scope: 'a', k: 5 })
    const knowledge = hits.find((hit) => hit.kind === 'knowledge')
    expect(knowledge).toMatchObject({ text: 'Returns within 30 days with a receipt.', sourceName: 'shop.md' })
    expect(knowledge?.metadata).toEqual({ document: document.id, chunk: 1, headings: ['Shop', 'Returns'] })
    expect(hits.some((hit) => hit.kind === 'memory')).toBe(true)
    expect(await store.list({})).toHaveLength(1)
    expect((await store.search('opening hours', { scope: 'someone-else', k: 1 }))[0]?.kind).toBe('knowledge')
    expect(await store.removeKnowledge(document.id)).toBe(true)
    expect(await store.removeKnowledge(document.id)).toBe(false)
    expect(await store.listKnowledge()).toEqual([])
    expect(
      (await store.search('returns receipt', { scope: 'a', k: 5 })).every((hit) => hit.kind === 'memory'),
    ).toBe(true)
  })
})
