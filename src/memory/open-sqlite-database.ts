/**
 * better-sqlite3 is required when the first SQLite store opens, not with `import('charpipe')`: a
 * program with the in-memory history or another store never loads the native binding. It is
 * CommonJS, so `require` hands out the same instance an `import` would.
 *
 * Two majors are installed and the running Node picks one. better-sqlite3 12 is built on
 * `node::ObjectWrap`, whose destructor on Node 24 and later removes an environment cleanup hook
 * and aborts the process (`Assertion failed: (env) != nullptr`) when a statement or database is
 * collected with no JavaScript context entered (a worker thread, a GC run from a platform task).
 * better-sqlite3 13 (N-API, prebuilt) has no such destructor but needs Node 22: Node 20 loads 12.
 */
import { createRequire } from 'node:module'
import type Database from 'better-sqlite3'

const require = createRequire(import.meta.url)
let loadedDatabase: typeof Database | undefined

/** The package name of the better-sqlite3 this Node loads (`better-sqlite3-napi` is 13 under an alias). */
export function selectSqlitePackage(nodeVersion: string = process.versions.node): string {
  const major = Number(nodeVersion.split('.')[0])
  return major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3'
}

/** Where the better-sqlite3 this Node loads is (for a worker thread, which loads its own). */
export function resolveSqlitePackage(): string {
  return require.resolve(selectSqlitePackage())
}

/** `new Database(path, options)` of better-sqlite3, loading it on the first call. */
export function openSqliteDatabase(path: string, options?: Database.Options): Database.Database {
  loadedDatabase ??= require(selectSqlitePackage()) as typeof Database
  return new loadedDatabase(path, options)
}
