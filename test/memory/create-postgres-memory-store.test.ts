import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { EmbeddingsClient } from '../../src/memory/long-term/create-openai-embeddings.js'
import {
  type CreatePostgresMemoryStoreOptions,
  createPostgresMemoryStore,
} from '../../src/memory/long-term/create-postgres-memory-store.js'
import { createSqliteMemoryStore } from '../../src/memory/long-term/create-sqlite-memory-store.js'
import { listPostgresMemoryMigrations } from '../../src/memory/long-term/postgres-memory-migrations.js'
import { forgetTurnMemories } from '../../src/memory/long-term/remember-turn.js'
import type { MemoryStore } from '../../src/memory/types.js'
import { contractLines, describeMemoryStoreContract } from '../../src/testing/memory-store-contract.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl as url,
} from '../support/local-postgres.js'

// Schemas of this run only, all dropped afterwards, so the suite never touches other tables.
const prefix = createTestSchemaName('memory')
const skipReason = await findPostgresSkipReason()
if (skipReason) console.warn(`postgres memory store tests skipped: ${skipReason}`)

afterAll(async () => {
  if (!skipReason) await dropSchemasUnder(prefix)
})

describeMemoryStoreContract({
  name: 'postgres',
  openStore: ({ database, ...options }) =>
    createPostgresMemoryStore({ url, schema: `${prefix}_${database}`, ...options }),
  skipReason,
})

const stores: MemoryStore[] = []
let schemaCount = 0
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

async function openStore(overrides: Partial<CreatePostgresMemoryStoreOptions> = {}) {
  const store = await createPostgresMemoryStore({ url, schema: `${prefix}_own`, ...overrides })
  stores.push(store)
  return store
}

function newSchema(): string {
  return `${prefix}_case${++schemaCount}`
}

/** Word-topic vectors (a fake embeddings model), so both stores fuse the same vector ranking. */
const fakeEmbeddings: EmbeddingsClient = {
  model: 'letters-1',
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(8).fill(0.01)
      for (const character of text.toLowerCase()) {
        const code = character.charCodeAt(0)
        vector[code % 8] = (vector[code % 8] ?? 0) + 1
      }
      return vector
    })
  },
}

describe.skipIf(skipReason !== undefined)('createPostgresMemoryStore', () => {
  it('ranks the same data exactly as the SQLite store: same hits, same order, same scores', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'memory-equal-'))
    try {
      const now = () => Date.UTC(2025, 5, 1)
      for (const embeddings of [undefined, fakeEmbeddings]) {
        const sqlite = createSqliteMemoryStore({
          path: join(folder, `${embeddings ? 'v' : 'k'}.db`),
          now,
          embeddings,
        })
        stores.push(sqlite)
        const postgres = await openStore({ schema: newSchema(), now, embeddings })
        for (const store of [sqlite, postgres]) {
          for (const [index, text] of contractLines.entries()) {
            await store.add({
              scope: index % 4 ? 'a' : 'b',
              text,
              speaker: index % 2 ? 'Caroline' : 'Melanie',
              time: Date.UTC(2025, 0, 1 + index),
            })
          }
          await store.addKnowledge({
            name: 'cats.md',
            text: '# Cats\n\nA cat named Pixel likes the lighthouse.',
          })
          const [first] = await store.list({ scope: 'a', limit: 1 })
          await store.update(first!.id, { text: 'The lighthouse keeper novel had a twist about a cat' })
        }
        let compared = 0
        for (const scope of ['a', 'b']) {
          for (const query of [
            ...contractLines,
            'cat lighthouse',
            'Caroline coffee',
            '北京',
            'marathon lake',
          ]) {
            const summary = async (store: MemoryStore) =>
              (await store.search(query, { scope, k: 8 })).map((hit) => [hit.text, hit.kind, hit.score])
            const expected = await summary(sqlite)
            expect(await summary(postgres)).toEqual(expected)
            compared += expected.length
          }
        }
        expect(compared).toBeGreaterThan(80)
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('migrates once when several servers start together, beside the history tables', async () => {
    const schema = newSchema()
    const pool = new pg.Pool({ connectionString: url, max: 6 })
    try {
      const opened = await Promise.all(
        Array.from({ length: 4 }, () => createPostgresMemoryStore({ pool, schema })),
      )
      await opened[0]!.add({ scope: 's', text: 'remember the milk' })
      expect((await opened[3]!.search('milk', { scope: 's', k: 1 }))[0]?.text).toBe('remember the milk')
      const versions = await pool.query(`SELECT component, version FROM "${schema}".charpipe_schema_versions`)
      expect(versions.rows).toEqual([{ component: 'memory', version: listPostgresMemoryMigrations().length }])
      await Promise.all(opened.map((store) => store.close()))
    } finally {
      await pool.end()
    }
  })

  it('chains neighbour context across stores writing one scope at once, and every index equals a fresh one', async () => {
    const schema = newSchema()
    // One clock for every store, so time decay scores alike.
    const now = () => Date.UTC(2025, 5, 1)
    // Each write waits for the scope's lock while the others hold it: on a loaded machine that wait
    // passes the default one-second query timeout, which is not what this test is about.
    const writers = await Promise.all([0, 1, 2].map(() => openStore({ schema, now, timeoutMs: 30_000 })))
    for (const writer of writers) await writer.search('warm', { scope: 'a', k: 1 })
    await Promise.all(
      contractLines.map((text, index) =>
        writers[index % 3]!.add({ scope: 'a', text, time: Date.UTC(2025, 0, 1) }),
      ),
    )
    const pool = new pg.Pool({ connectionString: url })
    const rows = await pool.query<{ text: string; context: string }>(
      `SELECT text, context FROM "${schema}".memory_items ORDER BY seq`,
    )
    await pool.end()
    // Each memory's context is the one before it and the one after, in the order they were stored.
    rows.rows.forEach((row, index) => {
      const parts = [rows.rows[index - 1]?.text, rows.rows[index + 1]?.text].filter(
        (part) => part !== undefined,
      )
      expect(row.context).toBe(parts.join('\n'))
    })
    const fresh = await openStore({ schema, now })
    for (const query of ['lighthouse herons', 'marathon sister', '北京火锅', 'Pixel coffee']) {
      const expected = (await fresh.search(query, { scope: 'a', k: 10 })).map((hit) => [hit.id, hit.score])
      for (const writer of writers)
        expect((await writer.search(query, { scope: 'a', k: 10 })).map((hit) => [hit.id, hit.score])).toEqual(
          expected,
        )
    }
  })

  it('keeps the index unchanged when a write transaction fails', async () => {
    const schema = newSchema()
    const store = await openStore({ schema })
    await store.add({ scope: 'a', text: 'the violin lesson is on Tuesday' })
    expect(await store.search('violin', { scope: 'a', k: 5 })).toHaveLength(1)
    const pool = new pg.Pool({ connectionString: url })
    await pool.query(`CREATE FUNCTION "${schema}".refuse_cello() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.text LIKE '%cello%' THEN RAISE EXCEPTION 'no cellos'; END IF; RETURN NEW; END $$`)
    await pool.query(`CREATE TRIGGER refuse_cello BEFORE INSERT ON "${schema}".memory_items
      FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_cello()`)
    await pool.end()
    await expect(store.add({ scope: 'a', text: 'the cello and violin duet' })).rejects.toThrow(/no cellos/)
    const hits = await store.search('violin', { scope: 'a', k: 5 })
    expect(hits.map((hit) => hit.text)).toEqual(['the violin lesson is on Tuesday'])
    // The failed add did not leave the previous memory indexed with the rejected neighbour.
    expect(await store.search('cello', { scope: 'a', k: 5 })).toEqual([])
    await store.add({ scope: 'a', text: 'a viola now' })
    expect((await store.search('viola', { scope: 'a', k: 5 })).map((hit) => hit.text)).toContain(
      'a viola now',
    )
  })

  it('reloads a scope whose logged changes it missed were pruned', async () => {
    const schema = newSchema()
    const reader = await openStore({ schema })
    const writer = await openStore({ schema })
    await writer.add({ scope: 'a', text: 'first note about kites' })
    expect(await reader.search('kites', { scope: 'a', k: 5 })).toHaveLength(1)
    const second = await writer.add({ scope: 'a', text: 'kites need wind' })
    // As if the log had moved on past what the reader has seen.
    const pool = new pg.Pool({ connectionString: url })
    await pool.query(`DELETE FROM "${schema}".memory_index_log`)
    await pool.end()
    const third = await writer.add({ scope: 'a', text: 'kites and wind again' })
    const found = (await reader.search('kites wind', { scope: 'a', k: 5 })).map((hit) => hit.id)
    expect(found).toEqual(expect.arrayContaining([second.id, third.id]))
  })

  it("forgets a turn's memory whose write is under way once it commits, not before: none is left to land after the forget", async () => {
    const schema = newSchema()
    const store = await openStore({ schema })
    await store.add({ scope: 'a', text: 'the kite is red', sourceTurn: 'turn-1' })
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    // The next insert into the scope waits for the test's advisory lock, inside its transaction.
    await pool.query(`CREATE FUNCTION "${schema}".hold_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(4711); RETURN NEW; END $$`)
    await pool.query(`CREATE TRIGGER hold_insert BEFORE INSERT ON "${schema}".memory_items
      FOR EACH ROW EXECUTE FUNCTION "${schema}".hold_insert()`)
    const holder = await pool.connect()
    try {
      await holder.query('BEGIN')
      await holder.query('SELECT pg_advisory_xact_lock(4711)')
      const adding = store.add({ scope: 'a', text: 'the kite is blue', sourceTurn: 'turn-2' })
      // The memory's write has begun, and waits before its commit.
      await vi.waitFor(async () => {
        const waiting = await pool.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4711 AND NOT granted`,
        )
        expect(waiting.rows).toHaveLength(1)
      })
      const forgetting = forgetTurnMemories(store, 'a', 'turn-2')
      let forgotten = false
      void forgetting.finally(() => {
        forgotten = true
      })
      // The forget has read the scope's memories, or waits for the scope's lock; then the write commits.
      await vi.waitFor(async () => {
        if (forgotten) return
        const waiting = await pool.query(
          `SELECT 1 FROM pg_locks WHERE locktype <> 'advisory' AND NOT granted`,
        )
        expect(waiting.rows).toHaveLength(1)
      })
      await holder.query('COMMIT')
      await adding
      expect(await forgetting).toHaveLength(1)
    } finally {
      holder.release()
      await pool.end()
    }
    expect((await store.list({ scope: 'a' })).map((memory) => memory.text)).toEqual(['the kite is red'])
    expect(await store.search('kite blue', { scope: 'a', k: 5 })).toHaveLength(1)
  })

  it('refuses text with a NUL character, naming the field', async () => {
    const store = await openStore({ schema: newSchema() })
    await expect(store.add({ scope: 'a', text: 'a\u0000b' })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/memory add: text holds a NUL character/),
    })
  })
})

describe('createPostgresMemoryStore without a server', () => {
  it('names the host, not the password, when it cannot connect', async () => {
    const attempt = createPostgresMemoryStore({ url: 'postgres://someone:hunter2secret@127.0.0.1:1/test' })
    await expect(attempt).rejects.toThrow(
      /cannot open PostgreSQL memory at postgres:\/\/127\.0\.0\.1:1\/test/,
    )
    await expect(attempt).rejects.not.toThrow(/hunter2secret/)
  })
})
