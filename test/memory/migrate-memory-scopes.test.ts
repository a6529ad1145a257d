/**
 * A store written before memory scopes were encoded is migrated once when it is opened: each
 * memory ends up under the scope its conversation has now (`memoryScopeOf`), found by search there,
 * and a character's memory never shares a scope with the default character's session of the same
 * text. Old stores are made by writing old-format scopes and setting the version back.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresMemoryStore } from '../../src/memory/long-term/create-postgres-memory-store.js'
import { createSqliteMemoryStore } from '../../src/memory/long-term/create-sqlite-memory-store.js'
import { migrateMemorySchema } from '../../src/memory/long-term/migrate-memory-schema.js'
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

/**
 * The tables of a version 2 or 3 store: the segmented terms in the FTS5 table of that layout (with
 * each row's scope as a token), before `memory_terms` held them; at version 2, scopes as written.
 */
function rewindToVersion(path: string, version: 2 | 3): void {
  const database = openSqliteDatabase(path)
  database.function('scope_key', (scope: unknown) =>
    scope === '' ? 'kbknowledge' : `s${createHash('sha1').update(String(scope)).digest('hex').slice(0, 20)}`,
  )
  database.exec(`
    CREATE VIRTUAL TABLE memory_fts USING fts5 (
      scope_key, speaker, body, context, tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE memory_fts_terms USING fts5vocab (memory_fts, 'row');
    INSERT INTO memory_fts (rowid, scope_key, speaker, body, context)
      SELECT t.seq, scope_key(i.scope), t.speaker, t.body, t.context
      FROM memory_terms t JOIN memory_items i ON i.seq = t.seq;
    DROP TABLE memory_terms;
    DELETE FROM memory_schema_version WHERE version > ${version};`)
  database.close()
}

describe('SQLite memory store', () => {
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-scopes-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('moves memories kept under old scopes to the encoded ones, once', async () => {
    const path = join(folder, 'old.db')
    await seedLegacy(createSqliteMemoryStore({ path }))
    rewindToVersion(path, 2)
    await expectMigrated(createSqliteMemoryStore({ path, characterIds: ['nova'] }))
    // Opened again, nothing moves a second time.
    await expectMigrated(createSqliteMemoryStore({ path, characterIds: ['nova'] }))
  })

  it('skips a migration another process applied after this one read the version', async () => {
    const path = join(folder, 'race.db')
    const store = createSqliteMemoryStore({ path })
    await store.add({ scope: 'a', text: 'the lighthouse keeper reads novels' })
    await store.close()
    rewindToVersion(path, 3)
    const database = openSqliteDatabase(path)
    // The other process (another connection) migrates between this one's read of the version and
    // its first migration transaction: as when `charpipe kb add` and the server open an old file.
    let raced = false
    const racing = new Proxy(database, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (property !== 'transaction' || raced)
          return typeof value === 'function' ? value.bind(target) : value
        raced = true
        const other = openSqliteDatabase(path)
        migrateMemorySchema(other)
        other.close()
        return value.bind(target)
      },
    })
    expect(migrateMemorySchema(racing)).toBe(4)
    expect(raced).toBe(true)
    expect(database.prepare('SELECT count(*) FROM memory_terms').pluck().get()).toBe(1)
    expect(
      database.prepare('SELECT count(*) FROM memory_schema_version WHERE version = 4').pluck().get(),
    ).toBe(1)
    database.close()
  })

  it('keeps every memory’s terms when they move out of the FTS table (version 4)', async () => {
    const path = join(folder, 'fts.db')
    const texts = [
      '我周末和朋友去北京吃火锅',
      'The marathon route goes past the lake',
      'ok',
      'Pixel knocked my coffee over',
    ]
    const store = createSqliteMemoryStore({ path, now: () => Date.UTC(2025, 5, 1) })
    for (const text of texts) await store.add({ scope: 'a', text, speaker: 'Caroline' })
    const queries = ['火锅', 'lake marathon', 'coffee', 'Caroline']
    const before = await Promise.all(queries.map((query) => store.search(query, { scope: 'a', k: 5 })))
    await store.close()
    rewindToVersion(path, 3)
    const reopened = createSqliteMemoryStore({ path, now: () => Date.UTC(2025, 5, 1) })
    const after = await Promise.all(queries.map((query) => reopened.search(query, { scope: 'a', k: 5 })))
    expect(after).toEqual(before)
    expect(before.every((hits) => hits.length > 0)).toBe(true)
    await reopened.close()
    const database = openSqliteDatabase(path, { readonly: true })
    const tables = database
      .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'memory_fts%'")
      .pluck()
      .all()
    expect(tables).toEqual([])
    expect(database.prepare('SELECT count(*) FROM memory_terms').pluck().get()).toBe(texts.length)
    database.close()
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
