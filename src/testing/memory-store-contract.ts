/**
 * The behaviour every long-term `MemoryStore` shares, as one vitest suite run against each store
 * (SQLite, PostgreSQL): the memory operations, search and its ranking rules, the knowledge base,
 * vectors, and two stores over the same data seeing each other's writes. Each test names the data
 * it opens (`database`); the same name within one test is the same data, and every test starts
 * from nothing.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { segmentText } from '../memory/long-term/segment-text.js'
import { maxMemoryTextCharacters } from '../memory/long-term/validate-memory-input.js'
import type { MemoryStore } from '../memory/types.js'
import { CharpipeError } from '../shared/errors.js'
import {
  type ContractStoreOptions,
  describeMemorySearchContract,
  memoryContractStart,
} from './memory-search-contract.js'

export interface MemoryStoreContractOptions {
  /** Suite title, e.g. `sqlite`. */
  name: string
  /** A store over the named data; the suite closes it after the test. */
  openStore: (options: ContractStoreOptions) => Promise<MemoryStore> | MemoryStore
  /** When set, the suite is skipped and this says why (e.g. the server is down). */
  skipReason?: string
}

const start = memoryContractStart
const day = 86_400_000

export const contractLines = [
  'I adopted a grey cat named Pixel from the shelter last spring',
  'Pixel knocked my coffee off the desk again this morning',
  'We went hiking near the lake and saw two herons',
  'My sister is training for a marathon in October',
  'The marathon route goes past the lake and the old mill',
  '我周末和朋友去北京吃火锅',
  '北京的冬天很冷，但是火锅很好吃',
  'Coffee with my sister at the new café downtown',
  'The shelter asked for volunteers to walk the dogs on weekends',
  'I finished reading a novel about a lighthouse keeper',
  'ok',
  'The lighthouse keeper novel had a twist about the herons',
]

export function describeMemoryStoreContract(options: MemoryStoreContractOptions): void {
  const title = options.skipReason
    ? `MemoryStore contract: ${options.name} (skipped: ${options.skipReason})`
    : `MemoryStore contract: ${options.name}`
  describe.skipIf(options.skipReason !== undefined)(title, () => {
    const open: MemoryStore[] = []
    let test = ''
    let clock = start
    beforeEach(() => {
      test = randomUUID().slice(0, 8)
      clock = start
    })
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close()
    })
    const openStore = async (overrides: Partial<ContractStoreOptions> = {}) => {
      const store = await options.openStore({
        now: () => clock,
        ...overrides,
        database: `${test}_${overrides.database ?? 'main'}`,
      })
      open.push(store)
      return store
    }

    describe('memory operations', () => {
      it('adds and gets a memory with every field', async () => {
        const store = await openStore()
        const added = await store.add({
          scope: 'alice',
          text: 'Alice adopted a cat named Miso.',
          speaker: 'Alice',
          time: start - day,
          metadata: { mood: 'happy', tags: ['pets'] },
          sourceTurn: 'turn-1',
        })
        expect(added.id).toMatch(/^mem_/)
        const expected = {
          id: added.id,
          scope: 'alice',
          text: 'Alice adopted a cat named Miso.',
          speaker: 'Alice',
          time: start - day,
          metadata: { mood: 'happy', tags: ['pets'] },
          sourceTurn: 'turn-1',
        }
        expect(added).toEqual(expected)
        expect(await store.get(added.id)).toEqual(expected)
        expect((await store.add({ scope: 'alice', text: 'no time given' })).time).toBe(start)
        expect(await store.get('mem_missing')).toBeUndefined()
      })

      it('lists newest first, by scope, with paging', async () => {
        const store = await openStore()
        for (const text of ['one', 'two', 'three']) await store.add({ scope: 'a', text })
        await store.add({ scope: 'b', text: 'other scope' })
        expect((await store.list({ scope: 'a' })).map((record) => record.text)).toEqual([
          'three',
          'two',
          'one',
        ])
        expect((await store.list({ scope: 'a', limit: 1, offset: 1 })).map((record) => record.text)).toEqual([
          'two',
        ])
        expect(await store.list({})).toHaveLength(4)
      })

      it('lists the memories of one source turn', async () => {
        const store = await openStore()
        await store.add({ scope: 'a', text: 'from turn one', sourceTurn: 'turn-1' })
        await store.add({ scope: 'a', text: 'from turn two', sourceTurn: 'turn-2' })
        await store.add({ scope: 'a', text: 'also from turn two', sourceTurn: 'turn-2' })
        await store.add({ scope: 'b', text: 'another scope, turn two', sourceTurn: 'turn-2' })
        await store.add({ scope: 'a', text: 'added by hand' })
        const listed = await store.list({ scope: 'a', sourceTurn: 'turn-2' })
        expect(listed.map((record) => record.text)).toEqual(['also from turn two', 'from turn two'])
        expect(await store.list({ sourceTurn: 'turn-2' })).toHaveLength(3)
      })

      it('lists the memories whose scope starts with a prefix, character for character', async () => {
        const store = await openStore()
        await store.add({ scope: '~person::onebot:qq:1', text: 'likes tea' })
        await store.add({ scope: '~person::bilibili:live:7', text: 'has a dog' })
        await store.add({ scope: '~person:nova:onebot:qq:1', text: 'another character' })
        await store.add({ scope: '~personX:onebot', text: 'not the prefix' })
        await store.add({ scope: 'onebot%3Aqq', text: 'a conversation' })
        // % and _ are ordinary characters here, not patterns.
        await store.add({ scope: 'a%b_c', text: 'percent' })
        await store.add({ scope: 'aXbYc', text: 'would match as a pattern' })
        const texts = async (options: { scopePrefix: string; scope?: string }) =>
          (await store.list(options)).map((record) => record.text).sort()
        expect(await texts({ scopePrefix: '~person::' })).toEqual(['has a dog', 'likes tea'])
        expect(await texts({ scopePrefix: '~person:' })).toEqual([
          'another character',
          'has a dog',
          'likes tea',
        ])
        expect(await texts({ scopePrefix: 'a%b_' })).toEqual(['percent'])
        expect(await texts({ scopePrefix: '~person::', scope: '~person::onebot:qq:1' })).toEqual([
          'likes tea',
        ])
        expect(await texts({ scopePrefix: 'nobody' })).toEqual([])
        expect(await store.list({ scopePrefix: '~person::', limit: 1, offset: 1 })).toHaveLength(1)
      })

      it('updates text, speaker, time and metadata, and re-indexes the text', async () => {
        const store = await openStore()
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
        expect(await store.get(added.id)).toEqual(updated)
        expect(await store.search('Berlin', { scope: 'a', k: 5 })).toEqual([])
        expect((await store.search('Lisbon', { scope: 'a', k: 5 })).map((hit) => hit.id)).toEqual([added.id])
        expect(await store.update('mem_missing', { text: 'x' })).toBeUndefined()
      })

      it('deletes one memory and all of a scope, leaving other scopes', async () => {
        const store = await openStore()
        const first = await store.add({ scope: 'a', text: 'likes tea' })
        await store.add({ scope: 'a', text: 'likes coffee' })
        await store.add({ scope: 'b', text: 'likes tea too' })
        expect(await store.delete(first.id)).toBe(true)
        expect(await store.delete(first.id)).toBe(false)
        expect(await store.get(first.id)).toBeUndefined()
        expect(await store.deleteAll('a')).toBe(1)
        expect(await store.deleteAll('nobody')).toBe(0)
        expect(await store.list({ scope: 'a' })).toEqual([])
        expect((await store.search('tea', { scope: 'b', k: 5 })).map((hit) => hit.text)).toEqual([
          'likes tea too',
        ])
      })

      it('keeps the change history of a memory: add, update, delete with old and new text', async () => {
        const store = await openStore()
        const added = await store.add({ scope: 'a', text: 'favourite colour is blue' })
        clock += 1000
        await store.update(added.id, { text: 'favourite colour is green' })
        clock += 1000
        await store.delete(added.id)
        const history = await store.history(added.id)
        expect(
          history.map(({ event, oldText, newText, time }) => ({ event, oldText, newText, time })),
        ).toEqual([
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

      it('keeps its memories when reopened', async () => {
        const first = await openStore()
        const added = await first.add({ scope: 'a', text: '我喜欢吃火锅', time: start + 0.5 })
        await first.close()
        const second = await openStore()
        expect((await second.search('火锅', { scope: 'a', k: 3 })).map((hit) => hit.id)).toEqual([added.id])
        expect((await second.get(added.id))?.time).toBe(start + 0.5)
      })

      it('rejects bad input with an error naming the field', async () => {
        const store = await openStore()
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
          [
            () => store.add({ scope: 'a', text: 'x'.repeat(maxMemoryTextCharacters + 1) }),
            /memory add: text is 65537 characters, more than the 65536/,
          ],
        ]
        for (const [call, message] of cases) {
          const error = await call().catch((caught: unknown) => caught)
          expect(CharpipeError.isInstance(error), String(message)).toBe(true)
          expect((error as Error).message).toMatch(message)
        }
      })

      it('reads past a run of near-duplicates until k different memories are found', async () => {
        const store = await openStore()
        const different = [
          'We walked to the old lighthouse on Sunday and watched the fishing boats come in',
          'My grandfather kept the lighthouse on the island for thirty years before he retired',
          'The lighthouse museum sells postcards, maps and a little brass model of the lamp',
        ]
        for (const [index, text] of different.entries())
          await store.add({ scope: 'beacon', text, time: start - (10 + index) * day })
        // Newer, shorter and saying the word twice: all of them rank above the three above, and
        // they are one memory to the reader, so the search must read far past its first rows.
        for (let index = 0; index < 40; index++)
          await store.add({ scope: 'beacon', text: 'The lighthouse, the lighthouse!', time: start - index })
        const hits = await store.search('lighthouse', { scope: 'beacon', k: 4 })
        expect(hits.map((hit) => hit.text).sort()).toEqual(
          ['The lighthouse, the lighthouse!', ...different].sort(),
        )
        expect(hits[0]?.text).toBe('The lighthouse, the lighthouse!')
      })
    })

    describeMemorySearchContract({ openStore, setClock: (time) => (clock = time) })

    describe('knowledge base', () => {
      it('chunks documents, lists and removes them, and retrieves chunks beside memories', async () => {
        const store = await openStore()
        const document = await store.addKnowledge({
          name: 'shop.md',
          text: '# Shop\n\n## Opening hours\n\nWe open at 9 and close at 18.\n\n## Returns\n\nReturns within 30 days with a receipt.',
        })
        expect(document).toMatchObject({ name: 'shop.md', chunks: 2, createdAt: start })
        expect(await store.listKnowledge()).toEqual([document])
        await store.add({ scope: 'a', text: 'The user asked about returns last week.' })
        const hits = await store.search('returns receipt', { scope: 'a', k: 5 })
        const knowledge = hits.find((hit) => hit.kind === 'knowledge')
        expect(knowledge).toMatchObject({
          text: 'Returns within 30 days with a receipt.',
          sourceName: 'shop.md',
        })
        expect(knowledge?.metadata).toEqual({
          document: document.id,
          chunk: 1,
          headings: ['Shop', 'Returns'],
        })
        expect(hits.some((hit) => hit.kind === 'memory')).toBe(true)
        expect(await store.list({})).toHaveLength(1)
        expect((await store.search('opening hours', { scope: 'someone-else', k: 1 }))[0]?.kind).toBe(
          'knowledge',
        )
        expect(await store.removeKnowledge(document.id)).toBe(true)
        expect(await store.removeKnowledge(document.id)).toBe(false)
        expect(await store.listKnowledge()).toEqual([])
        expect(
          (await store.search('returns receipt', { scope: 'a', k: 5 })).every((hit) => hit.kind === 'memory'),
        ).toBe(true)
      })
    })

    describe('keyword index', () => {
      it('stays equal to a fresh build through adds, updates, deletes and delete-all, across scopes', async () => {
        clock = Date.UTC(2025, 5, 1)
        const store = await openStore()
        // Load the partitions first, so every later write has to be applied to them in place.
        for (const scope of ['a', 'b', 'c']) await store.search('cat', { scope, k: 1 })
        const ids: string[] = []
        for (const [index, text] of contractLines.entries()) {
          ids.push((await store.add({ scope: index % 3 ? 'a' : 'b', text, speaker: 'Ann' })).id)
        }
        await store.update(ids[1] as string, {
          text: 'Pixel now sleeps on the lighthouse novel',
          speaker: 'Bo',
        })
        await store.update(ids[4] as string, { time: Date.UTC(2020, 0, 1) })
        await store.delete(ids[2] as string)
        await store.delete(ids[7] as string)
        await store.addKnowledge({
          name: 'cats.md',
          text: '# Cats\n\nA cat named Pixel likes the lighthouse.',
        })
        await store.add({ scope: 'c', text: 'the herons came back to the lake' })
        await store.deleteAll('c')
        await store.add({ scope: 'a', text: 'one more note about the marathon and the cat' })

        const rebuilt = await openStore()
        const vocabulary = [
          ...new Set([...contractLines, 'Caroline Melanie Ann Bo'].flatMap((line) => segmentText(line))),
        ].sort()
        expect(vocabulary).toContain('pixel')
        let compared = 0
        for (const scope of ['a', 'b', 'c']) {
          for (const query of [...vocabulary, 'cat lighthouse Pixel', 'marathon lake herons', '北京火锅']) {
            const kept = await store.search(query, { scope, k: 20 })
            const fresh = await rebuilt.search(query, { scope, k: 20 })
            expect(kept.map((hit) => [hit.id, hit.score])).toEqual(fresh.map((hit) => [hit.id, hit.score]))
            for (const hit of kept) expect(hit.scope === scope || hit.kind === 'knowledge').toBe(true)
            compared += kept.length
          }
        }
        expect(compared).toBeGreaterThan(100)
        expect(
          (await store.search('herons lake', { scope: 'c', k: 5 })).filter((hit) => hit.kind === 'memory'),
        ).toEqual([])
        const pixel = (await store.search('Pixel', { scope: 'a', k: 5 })).map((hit) => hit.text)
        expect(pixel).toContain('Pixel now sleeps on the lighthouse novel')
        expect(pixel).not.toContain(contractLines[1])
      })

      it('sees writes made through another store on the same data', async () => {
        const reader = await openStore()
        const writer = await openStore()
        const first = await writer.add({ scope: 'a', text: 'the first note about gardening' })
        expect(await reader.search('gardening', { scope: 'a', k: 5 })).toHaveLength(1)
        // A row the reader has read before comes back as it is now, not as it was.
        await writer.update(first.id, { text: 'the first note about gardening, amended' })
        expect((await reader.search('gardening', { scope: 'a', k: 5 })).map((hit) => hit.text)).toEqual([
          'the first note about gardening, amended',
        ])
        const second = await writer.add({ scope: 'a', text: 'tomatoes need gardening gloves' })
        const ids = async (query: string) =>
          (await reader.search(query, { scope: 'a', k: 5 })).map((hit) => hit.id)
        // The first note matches too, through its new neighbour (context), but ranks below.
        expect((await ids('tomatoes'))[0]).toBe(second.id)
        await writer.delete(second.id)
        expect(await ids('tomatoes')).not.toContain(second.id)
        await writer.addKnowledge({ name: 'garden.md', text: 'Tomatoes like sun and gardening care.' })
        const knowledge = await reader.search('tomatoes sun', { scope: 'a', k: 5 })
        expect(knowledge[0]?.kind).toBe('knowledge')
        const third = await reader.add({ scope: 'a', text: 'tomatoes again in the sun' })
        expect(await ids('tomatoes sun')).toContain(third.id)
        expect((await writer.search('tomatoes sun', { scope: 'a', k: 5 })).map((hit) => hit.id)).toContain(
          third.id,
        )
        await writer.deleteAll('a')
        expect(
          (await reader.search('tomatoes', { scope: 'a', k: 5 })).every((hit) => hit.kind === 'knowledge'),
        ).toBe(true)
      })

      it('finds the same memories in an evicted scope after it is rebuilt', async () => {
        const store = await openStore({ keywordIndexMaxBytes: 1 })
        await store.add({ scope: 'a', text: 'Pixel knocked my coffee off the desk' })
        await store.add({ scope: 'b', text: 'We saw two herons at the lake' })
        expect((await store.search('coffee', { scope: 'a', k: 1 }))[0]?.text).toMatch(/coffee/)
        expect((await store.search('herons', { scope: 'b', k: 1 }))[0]?.text).toMatch(/herons/)
        await store.add({ scope: 'a', text: 'More coffee this morning' })
        expect((await store.search('coffee', { scope: 'a', k: 2 })).map((hit) => hit.text)).toHaveLength(2)
      })
    })
  })
}
