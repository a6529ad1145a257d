import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { buildTurn } from '../../testing/history-store-contract.js'
import { openSqliteDatabase } from '../open-sqlite-database.js'
import { sqliteHistoryQueries } from './sqlite-history-queries.js'
import { createSqliteHistoryStore } from './sqlite-history-store.js'
import { sqliteHistoryMigrations } from './sqlite-migrations.js'

const folder = mkdtempSync(join(tmpdir(), 'charpipe-sqlite-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))
let fileCounter = 0
const newPath = () => join(folder, `history-${++fileCounter}.db`)
const scope = { character: '小助手', session: 'user-1' }

const planOf = (database: Database.Database, sql: string, parameters: Record<string, unknown>) =>
  database
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(parameters)
    .map((row) => (row as { detail: string }).detail)

describe('createSqliteHistoryStore', () => {
  it('migrates an empty file to the latest schema, in WAL mode', async () => {
    const path = newPath()
    const store = createSqliteHistoryStore({ path })
    await store.close()
    const database = openSqliteDatabase(path, { readonly: true })
    const version = database
      .prepare("SELECT version FROM charpipe_schema_versions WHERE component = 'history'")
      .get()
    expect(version).toEqual({ version: sqliteHistoryMigrations.length })
    expect(database.pragma('journal_mode', { simple: true })).toBe('wal')
    const tables = database
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name")
      .all()
    expect(tables.map((row) => (row as { name: string }).name)).toEqual(
      expect.arrayContaining(['history_messages', 'history_messages_by_turn', 'history_sessions']),
    )
    database.close()
  })

  it('reopens an existing file without migrating again and keeps its turns', async () => {
    const path = newPath()
    const first = createSqliteHistoryStore({ path })
    await first.appendTurn(scope, buildTurn(1))
    await first.close()
    const lines: string[] = []
    const { pino } = await import('pino')
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) })
    const second = createSqliteHistoryStore({ path, logger })
    expect(lines.filter((line) => line.includes('migration'))).toEqual([])
    expect((await second.loadRecent(scope, 5)).map((message) => message.content)).toEqual([
      '问题 1',
      '回答 1',
    ])
    await second.close()
  })

  it('refuses a database written by a newer schema, naming the path', () => {
    const path = newPath()
    createSqliteHistoryStore({ path }).close()
    const database = openSqliteDatabase(path)
    database.prepare("UPDATE charpipe_schema_versions SET version = 99 WHERE component = 'history'").run()
    database.close()
    expect(() => createSqliteHistoryStore({ path })).toThrow(/history-\d+\.db.*schema version 99 is newer/)
  })

  it('names the path when the file is not a database', () => {
    const path = newPath()
    writeFileSync(
      path,
      'this is not a SQLite database, only some text that is long enough to be read'.repeat(50),
    )
    expect(() => createSqliteHistoryStore({ path })).toThrow(`cannot open the history database ${path}`)
  })

  it('names the path when its folder cannot be created', () => {
    const blocker = join(folder, 'a-file')
    writeFileSync(blocker, '')
    const path = join(blocker, 'sub', 'history.db')
    expect(() => createSqliteHistoryStore({ path })).toThrow(`cannot open the history database ${path}`)
  })

  it('names the path when it is a folder', () => {
    expect(() => createSqliteHistoryStore({ path: folder })).toThrow(
      `cannot open the history database ${folder}`,
    )
  })

  it('shares one file between two open stores (two servers on one disk)', async () => {
    const path = newPath()
    const [left, right] = [createSqliteHistoryStore({ path }), createSqliteHistoryStore({ path })]
    for (let index = 1; index <= 6; index++)
      await (index % 2 ? left : right).appendTurn(scope, buildTurn(index))
    expect(await left.countTurns(scope)).toBe(6)
    expect((await right.loadRecent(scope, 2)).map((message) => message.content)).toEqual([
      '问题 5',
      '回答 5',
      '问题 6',
      '回答 6',
    ])
    await Promise.all([left.close(), right.close()])
  })

  it.skipIf(process.getuid?.() === 0)('names the path when the folder is not writable', () => {
    const locked = join(folder, 'locked')
    rmSync(locked, { recursive: true, force: true })
    createSqliteHistoryStore({ path: join(locked, 'x.db') }).close()
    chmodSync(locked, 0o500)
    try {
      expect(() => createSqliteHistoryStore({ path: join(locked, 'y.db') })).toThrow(
        /cannot open the history database/,
      )
    } finally {
      chmodSync(locked, 0o700)
    }
  })

  it('rejects a missing path and calls after close clearly', async () => {
    expect(() => createSqliteHistoryStore({ path: '' })).toThrow(/path must be a non-empty string/)
    const store = createSqliteHistoryStore({ path: ':memory:' })
    await expect(store.listMessages(scope, { beforeId: 'abc' })).rejects.toThrow(/beforeId/)
    await store.close()
    await expect(store.countTurns(scope)).rejects.toThrow(/is closed/)
  })

  // The query plans below are what shows that a read touches only its window: SQLite plans the same
  // for any number of rows (no ANALYZE statistics). The rows make a wrong window visible; 20,000 do
  // that as 100,000 did, in about 3 s instead of 18-21 s (the unit tier runs on four Node majors in CI).
  it('reads only the window with 20,000 messages in the session (index, no scan, no sort)', async () => {
    const path = newPath()
    const store = createSqliteHistoryStore({ path })
    const other = { ...scope, session: 'user-2' }
    for (let index = 1; index <= 10_000; index++) {
      await store.appendTurn(scope, buildTurn(index))
      if (index % 200 === 0) await store.appendTurn(other, buildTurn(index))
    }
    const recent = await store.loadRecent(scope, 3)
    expect(recent.map((message) => message.content)).toEqual([
      '问题 9998',
      '回答 9998',
      '问题 9999',
      '回答 9999',
      '问题 10000',
      '回答 10000',
    ])
    expect(await store.countTurns(scope)).toBe(10_000)
    const page = await store.listMessages(scope, { limit: 2, beforeId: recent[0]!.id })
    expect(page.map((message) => message.content)).toEqual(['问题 9997', '回答 9997'])
    await store.close()

    const database = openSqliteDatabase(path, { readonly: true })
    expect(database.prepare('SELECT count(*) AS n FROM history_messages').get()).toEqual({ n: 20_100 })
    const parameters = { character: scope.character, session: scope.session, maxTurns: 3 }
    const recentPlan = planOf(database, sqliteHistoryQueries.loadRecent, parameters)
    expect(recentPlan.join('\n')).toMatch(
      /SEARCH m USING INDEX history_messages_by_turn \(session_id=\? AND turn_seq>\?\)/,
    )
    expect(recentPlan.join('\n')).toMatch(/SEARCH s USING INDEX sqlite_autoindex_history_sessions_1/)
    expect(recentPlan.join('\n')).not.toMatch(/SCAN|TEMP B-TREE/)
    const listPlan = planOf(database, sqliteHistoryQueries.listMessages, {
      ...parameters,
      beforeId: 10,
      limit: 2,
    })
    expect(listPlan.join('\n')).toMatch(
      /SEARCH m USING (COVERING )?INDEX history_messages_by_session \(session_id=\? AND rowid<\?\)/,
    )
    expect(listPlan.join('\n')).not.toMatch(/SCAN|TEMP B-TREE/)
    // Every write first looks for its turn id (a turn is stored once): one index search.
    const findPlan = planOf(database, sqliteHistoryQueries.findTurn, { ...parameters, turn: 'turn-7' })
    expect(findPlan.join('\n')).toMatch(
      /SEARCH m USING INDEX history_messages_once \(session_id=\? AND turn=\?\)/,
    )
    expect(findPlan.join('\n')).not.toMatch(/SCAN/)
    database.close()
  }, 120_000)
})
