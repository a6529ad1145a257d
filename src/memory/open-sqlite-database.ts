/**
 * better-sqlite3 is required when the first SQLite store opens, not with `import('charpipe')`: a
 * program with the in-memory history or another store never loads the native binding. It is
 * CommonJS, so `require` hands out the same instance an `import` would.
 */
import { createRequire } from 'node:module'
import type Database from 'better-sqlite3'

const require = createRequire(import.meta.url)
let loadedDatabase: typeof Database | undefined

/** `new Database(path, options)` of better-sqlite3, loading it on the first call. */
export function openSqliteDatabase(path: string, options?: Database.Options): Database.Database {
  loadedDatabase ??= require('better-sqlite3') as typeof Database
  return new loadedDatabase(path, options)
}
