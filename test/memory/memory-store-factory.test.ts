import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { createMemoryStore } from '../../src/memory/memory-store-factory.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl,
} from '../support/local-postgres.js'

let folder: string
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'memory-factory-'))
})
afterEach(() => {
  rmSync(folder, { recursive: true, force: true })
})

describe('createMemoryStore', () => {
  it('is undefined when memory is disabled', async () => {
    const { config } = parseConfig({ memory: { enabled: false } })
    expect(await createMemoryStore(config)).toBeUndefined()
  })

  it('opens SQLite at storage.sqlite_path, creating the folder', async () => {
    const path = join(folder, 'nested', 'charpipe.db')
    const { config } = parseConfig({ storage: { sqlite_path: path } })
    const store = await createMemoryStore(config)
    await store?.add({ scope: 's', text: 'remember the milk' })
    await store?.close()
    const reopened = await createMemoryStore(config)
    expect((await reopened?.list({ scope: 's' }))?.map((memory) => memory.text)).toEqual([
      'remember the milk',
    ])
    await reopened?.close()
  })

  it('drops hits below memory.min_score, and keeps every match at 0', async () => {
    const path = join(folder, 'scores.db')
    const open = async (minScore: number) =>
      createMemoryStore(
        parseConfig({ storage: { sqlite_path: path }, memory: { min_score: minScore } }).config,
      )
    const search = async (minScore: number) => {
      const store = await open(minScore)
      try {
        return (await store?.search('jasmine tea', { scope: 's', k: 5 })) ?? []
      } finally {
        await store?.close()
      }
    }
    const writer = await open(0)
    for (const text of ['likes jasmine tea', 'went to the park', 'bought green tea', 'read a long book'])
      await writer?.add({ scope: 's', text })
    await writer?.close()
    const all = await search(0)
    expect(all[0]?.text).toBe('likes jasmine tea')
    expect(all.length).toBeGreaterThan(1)
    // Between the best hit and the next: only the best is left.
    const threshold = ((all[0]?.score ?? 0) + (all[1]?.score ?? 0)) / 2
    expect((await search(threshold)).map((hit) => hit.text)).toEqual(['likes jasmine tea'])
    expect(await search(1)).toEqual([])
  })

  it('uses the embeddings the config names, and still stores memories when they fail', async () => {
    const calls: string[][] = []
    const { config } = parseConfig({ storage: { sqlite_path: join(folder, 'x.db') } })
    const store = await createMemoryStore(config, {
      embeddings: {
        model: 'fake',
        async embed(texts) {
          calls.push(texts)
          throw new Error('endpoint down')
        },
      },
    })
    await store?.add({ scope: 's', text: 'likes jasmine tea' })
    expect(calls).toEqual([['likes jasmine tea']])
    expect((await store?.search('jasmine', { scope: 's', k: 1 }))?.map((hit) => hit.text)).toEqual([
      'likes jasmine tea',
    ])
    await store?.close()
  })
})

const postgresSkipReason = await findPostgresSkipReason()
const schema = createTestSchemaName('factory')
afterAll(async () => {
  if (!postgresSkipReason) await dropSchemasUnder(schema)
})

describe.skipIf(postgresSkipReason !== undefined)('createMemoryStore with memory.store: postgres', () => {
  it('opens PostgreSQL at storage.postgres_url, bounds its calls, and keeps memories across a reopen', async () => {
    const { config } = parseConfig({
      memory: { store: 'postgres' },
      storage: { postgres_url: testPostgresUrl, sqlite_path: join(folder, 'unused.db') },
    })
    const store = await createMemoryStore(config, { postgresSchema: schema })
    await store?.add({ scope: 's', text: 'remember the oat milk' })
    await expect(store?.search('x', { scope: 's', k: -1 })).rejects.toMatchObject({ code: 'bad_request' })
    await store?.close()
    const reopened = await createMemoryStore(config, { postgresSchema: schema })
    expect((await reopened?.search('oat milk', { scope: 's', k: 1 }))?.map((hit) => hit.text)).toEqual([
      'remember the oat milk',
    ])
    await reopened?.close()
  })
})

describe('createMemoryStore with memory.store: postgres and no server', () => {
  it('says which setting is missing', async () => {
    expect(() => parseConfig({ memory: { store: 'postgres' } })).toThrow(
      /storage\.postgres_url: memory\.store is postgres but no postgres_url is set/,
    )
    // A caller that builds the config by hand, past parseConfig, still gets a clear error.
    const { config } = parseConfig({})
    await expect(
      createMemoryStore({ ...config, memory: { ...config.memory, store: 'postgres' } }),
    ).rejects.toThrow(/memory\.store is postgres but storage\.postgres_url is empty/)
  })
})
