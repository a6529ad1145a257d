/**
 * The SQLite binding each Node loads: better-sqlite3 12 on Node 20, 13 (N-API, under the
 * `better-sqlite3-napi` alias) on Node 22 and later, where 12 aborts the process when a statement
 * is collected outside a JavaScript context.
 */
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { openSqliteDatabase, selectSqlitePackage } from './open-sqlite-database.js'

const require = createRequire(import.meta.url)

describe('openSqliteDatabase', () => {
  it('chooses better-sqlite3 12 for Node 20 and 13 from Node 22 on', () => {
    expect(selectSqlitePackage('20.20.2')).toBe('better-sqlite3')
    expect(selectSqlitePackage('22.12.0')).toBe('better-sqlite3-napi')
    expect(selectSqlitePackage('24.21.0')).toBe('better-sqlite3-napi')
    expect(selectSqlitePackage('26.10.0')).toBe('better-sqlite3-napi')
  })

  it('opens a database with the major that package is on this Node', () => {
    const installed = require(`${selectSqlitePackage()}/package.json`) as { version: string }
    const expectedMajor = Number(process.versions.node.split('.')[0]) >= 22 ? '13' : '12'
    expect(installed.version.split('.')[0]).toBe(expectedMajor)
    const database = openSqliteDatabase(':memory:')
    try {
      database.exec('create table notes (text)')
      database.prepare('insert into notes values (?)').run('kept')
      expect(database.prepare('select text from notes').get()).toEqual({ text: 'kept' })
    } finally {
      database.close()
    }
  })
})
