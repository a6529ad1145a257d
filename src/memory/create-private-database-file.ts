/**
 * SQLite files hold the conversations and memories of every user, so only the server's own user may
 * read them: a database file is created 0600 before SQLite opens it (SQLite then gives its `-wal`
 * and `-shm` files the same mode), and those two are tightened after opening in case an earlier
 * run left them readable. An existing database file keeps the mode its owner gave it. In-memory and temporary
 * databases (`:memory:`, empty path) have no files.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

const privateMode = 0o600

function isFileDatabase(path: string): boolean {
  return path !== '' && path !== ':memory:' && !path.startsWith('file:')
}

/** Creates the folder and, when missing, the database file itself with mode 0600. */
export function createPrivateDatabaseFile(path: string): void {
  if (!isFileDatabase(path)) return
  mkdirSync(dirname(resolve(path)), { recursive: true })
  if (existsSync(path)) return
  // 'a' creates the file without truncating one that appeared in between; the mode applies only
  // to a file this call creates.
  closeSync(openSync(path, 'a', privateMode))
}

/** Tightens the `-wal` and `-shm` files of a database (they hold recent writes in clear). */
export function restrictDatabaseSideFiles(path: string): void {
  if (!isFileDatabase(path)) return
  for (const suffix of ['-wal', '-shm']) {
    try {
      chmodSync(`${path}${suffix}`, privateMode)
    } catch {
      // Not there (yet): SQLite creates it with the database's own mode.
    }
  }
}
