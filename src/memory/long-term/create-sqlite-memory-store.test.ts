import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { estimateTokens } from '../../shared/estimate-tokens.js'
import { describeMemoryStoreContract } from '../../testing/memory-store-contract.js'
import { openSqliteDatabase } from '../open-sqlite-database.js'
import type { MemoryStore } from '../types.js'
import { type CreateSqliteMemoryStoreOptions, createSqliteMemoryStore } from './create-sqlite-memory-store.js'
import { maxIndexedCharacters } from './segment-text.js'

const contractFolder = mkdtempSync(join(tmpdir(), 'memory-contract-'))
afterAll(() => rmSync(contractFolder, { recursive: true, force: true }))

describeMemoryStoreContract({
  name: 'sqlite',
  openStore: ({ database, ...options }) =>
    createSqliteMemoryStore({ path: join(contractFolder, `${database}.db`), ...options }),
})

let folder: string
const stores: MemoryStore[] = []

function openStore(overrides: Partial<CreateSqliteMemoryStoreOptions> = {}): MemoryStore {
  const store = createSqliteMemoryStore({ path: join(folder, 'charpipe.db'), ...overrides })
  stores.push(store)
  return store
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'memory-store-'))
})

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
  rmSync(folder, { recursive: true, force: true })
})

describe('createSqliteMemoryStore', () => {
  it('survives reopening the file, beside other tables, in WAL mode with its own version table', async () => {
    const path = join(folder, 'charpipe.db')
    const first = openStore({ path })
    const added = await first.add({ scope: 'a', text: '我喜欢吃火锅' })
    await first.close()
    const second = openStore({ path })
    expect((await second.search('火锅', { scope: 'a', k: 3 })).map((hit) => hit.id)).toEqual([added.id])
    const database = openSqliteDatabase(path, { readonly: true })
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(database.prepare('SELECT max(version) AS v FROM memory_schema_version').get()).toEqual({ v: 4 })
    expect(database.pragma('user_version', { simple: true })).toBe(0)
    database.close()
  })

  it('keeps a huge memory whole but its neighbours’ context only up to the indexed length', async () => {
    const store = openStore()
    const huge = `violin ${'这是一段很长的中文文本没有空格'.repeat(4_000)} omega`
    await store.add({ scope: 'a', text: 'Which instrument do you play?' })
    await store.add({ scope: 'a', text: huge })
    await store.add({ scope: 'a', text: 'Nice. I mostly cook.' })
    const database = openSqliteDatabase(join(folder, 'charpipe.db'), { readonly: true })
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

describe('rows kept for searches', () => {
  const search = async (store: MemoryStore, query: string) =>
    (await store.search(query, { scope: 'a', k: 5 })).map((hit) => ({
      text: hit.text,
      metadata: hit.metadata,
    }))

  it('reads a row again once this store changed it, its metadata alone, or deleted it', async () => {
    const store = openStore()
    const violin = await store.add({ scope: 'a', text: 'the violin lesson is on Tuesday' })
    expect(await search(store, 'violin')).toEqual([
      { text: 'the violin lesson is on Tuesday', metadata: undefined },
    ])
    await store.update(violin.id, { text: 'the violin lesson moved to Friday' })
    expect(await search(store, 'violin')).toEqual([
      { text: 'the violin lesson moved to Friday', metadata: undefined },
    ])
    await store.update(violin.id, { metadata: { room: 2 } })
    expect(await search(store, 'violin')).toEqual([
      { text: 'the violin lesson moved to Friday', metadata: { room: 2 } },
    ])
    await store.delete(violin.id)
    expect(await search(store, 'violin')).toEqual([])
  })

  it('reads every row again once another connection wrote to the file', async () => {
    const path = join(folder, 'charpipe.db')
    const first = openStore({ path })
    const second = openStore({ path })
    const violin = await first.add({ scope: 'a', text: 'the violin lesson is on Tuesday' })
    expect(await search(first, 'violin')).toHaveLength(1)
    await second.update(violin.id, { metadata: { room: 2 } })
    expect(await search(first, 'violin')).toEqual([
      { text: 'the violin lesson is on Tuesday', metadata: { room: 2 } },
    ])
    await second.update(violin.id, { text: 'the violin lesson moved to Friday' })
    expect(await search(first, 'violin')).toEqual([
      { text: 'the violin lesson moved to Friday', metadata: { room: 2 } },
    ])
  })
})
