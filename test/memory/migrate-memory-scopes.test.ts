/**
 * A store written before memory scopes were encoded is migrated once when it is opened: each
 * memory ends up under the scope its conversation has now (`memoryScopeOf`), found by search there,
 * and a character's memory never shares a scope with the default character's session of the same
 * text. Old stores are made by writing old-format scopes and setting the version back.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresMemoryStore } from '../../src/memory/long-term/create-postgres-memory-store.js'
import { createSqliteMemoryStore } from '../../src/memory/long-term/create-sqlite-memory-store.js'
import { memoryScopeOf } from '../../src/memory/memory-scope-of.js'
import { openSqliteDatabase } from '../../src/memory/open-sqlite-database.js'
import type { MemoryStore } from '../../src/memory/types.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl,
} from '../support/local-postgres.js'

/** Old scope → what was meant: nova is a configured character, onebot is not. */
const legacyMemories = [
  { scope: 'nova:alice', text: 'alice keeps a red diary', now: { character: 'nova', session: 'alice' } },
  { scope: 'onebot:bot:group:1', text: 'the group likes hotpot', now: { session: 'onebot:bot:group:1' } },
  { scope: 'a%3Ab', text: 'percent session owns violins', now: { session: 'a%3Ab' } },
  { scope: 'a:b', text: 'colon session owns trumpets', now: { session: 'a:b' } },
  { scope: 'plain', text: 'plain session owns a bicycle', now: { session: 'plain' } },
]

async function seedLegacy(store: MemoryStore) {
  for (const memory of legacyMemories) await store.add({ scope: memory.scope, text: memory.text })
  await store.close()
}

async function expectMigrated(store: MemoryStore) {
  for (const memory of legacyMemories) {
    const scope = memoryScopeOf(memory.now)
    const listed = await store.list({ scope })
    expect(
      listed.map((record) => record.text),
      scope,
    ).toEqual([memory.text])
    const found = await store.search(memory.text, { scope, k: 5 })
    expect(
      found.map((hit) => hit.text),
      scope,
    ).toContain(memory.text)
  }
  // The default character's session `nova:alice` is not character nova's session `alice`.
  expect(await store.list({ scope: memoryScopeOf({ session: 'nova:alice' }) })).toEqual([])
  await store.close()
}

describe('SQLite memory store', () => {
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-scopes-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('moves memories kept under old scopes to the encoded ones, once', async () => {
    const path = join(folder, 'old.db')
    await seedLegacy(createSqliteMemoryStore({ path }))
    const database = openSqliteDatabase(path)
    database.prepare('DELETE FROM memory_schema_version WHERE version = 3').run()
    database.close()
    await expectMigrated(createSqliteMemoryStore({ path, characterIds: ['nova'] }))
    // Opened again, nothing moves a second time.
    await expectMigrated(createSqliteMemoryStore({ path, characterIds: ['nova'] }))
  })
})

const skipReason = await findPostgresSkipReason()
const prefix = createTestSchemaName('scopes')
describe.skipIf(skipReason)('PostgreSQL memory store', () => {
  afterAll(() => dropSchemasUnder(prefix))

  it('moves memories kept under old scopes to the encoded ones, once', async () => {
    const schema = `${prefix}_old`
    await seedLegacy(await createPostgresMemoryStore({ url: testPostgresUrl, schema }))
    const client = new pg.Client({ connectionString: testPostgresUrl })
    await client.connect()
    await client.query(
      `UPDATE "${schema}".charpipe_schema_versions SET version = 1 WHERE component = 'memory'`,
    )
    await client.end()
    const open = () => createPostgresMemoryStore({ url: testPostgresUrl, schema, characterIds: ['nova'] })
    await expectMigrated(await open())
    await expectMigrated(await open())
  })
})
