import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { joinWalCheckpoints, type WalCheckpointOptions } from './checkpoint-in-background.js'
import { openSqliteDatabase } from './open-sqlite-database.js'

let folder: string
const open: Database.Database[] = []

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'wal-checkpoints-'))
})

afterEach(() => {
  for (const database of open.splice(0)) if (database.open) database.close()
  rmSync(folder, { recursive: true, force: true })
})

function openFile(name = 'charpipe.db'): { path: string; database: Database.Database } {
  const path = join(folder, name)
  const database = openSqliteDatabase(path)
  database.pragma('journal_mode = WAL')
  database.exec('CREATE TABLE IF NOT EXISTS rows (text TEXT)')
  open.push(database)
  return { path, database }
}

/** `count` rows of 4 KB each: about as many pages of log. */
function writeRows(database: Database.Database, count: number): void {
  const insert = database.prepare('INSERT INTO rows VALUES (?)')
  for (let index = 0; index < count; index++) insert.run(`${index}:`.padEnd(4_000, '灯'))
}

const small: WalCheckpointOptions = {
  startBytes: 64 * 1024,
  checkEveryMs: 0,
  logger: pino({ level: 'silent' }),
}

/** A file whose log passed the start size: its checkpoint thread running, one checkpoint done. */
async function openWithThread() {
  const file = openFile()
  const checkpoints = joinWalCheckpoints(file.path, file.database, small)
  writeRows(file.database, 40)
  checkpoints.noteWrite()
  await checkpoints.checkpointNow()
  return { ...file, checkpoints }
}

describe('joinWalCheckpoints', () => {
  it('starts no thread while the log stays under its start size', () => {
    const { path, database } = openFile()
    const checkpoints = joinWalCheckpoints(path, database, small)
    writeRows(database, 2)
    checkpoints.noteWrite()
    expect(checkpoints.inBackground).toBe(false)
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    checkpoints.release()
  })

  it('reads the log after every write until the thread starts, however soon after the last read', async () => {
    const { path, database } = openFile()
    const checkpoints = joinWalCheckpoints(path, database, { ...small, checkEveryMs: 60_000 })
    writeRows(database, 2)
    checkpoints.noteWrite()
    // The next write, a moment later, takes the log past the start size (one knowledge-base
    // document's slices could take it past SQLite's own checkpoint size that fast).
    writeRows(database, 40)
    checkpoints.noteWrite()
    await checkpoints.checkpointNow()
    expect(checkpoints.inBackground).toBe(true)
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    checkpoints.release()
  }, 30_000)

  it('past it, a thread copies the log back into the file, and commits here no longer do', async () => {
    const { path, database } = openFile()
    const checkpoints = joinWalCheckpoints(path, database, small)
    writeRows(database, 40)
    const fileBefore = statSync(path).size
    checkpoints.noteWrite()
    // The thread is made in a turn of the loop of its own, not inside the write that asked for it.
    expect(checkpoints.inBackground).toBe(false)
    const result = await checkpoints.checkpointNow()
    expect(checkpoints.inBackground).toBe(true)
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    expect(result).toMatchObject({ busy: 0 })
    expect(result!.log).toBeGreaterThan(40)
    expect(result!.checkpointed).toBe(result!.log)
    // The pages are in the database file itself now, not only in the log.
    expect(statSync(path).size).toBeGreaterThan(fileBefore + 40 * 4_000)
    checkpoints.release()
  }, 30_000)

  it("copies the log back on the thread before the file's last connection closes, not on this one", async () => {
    const { path, database, checkpoints } = await openWithThread()
    // Written since the thread's last checkpoint: in the log only, as commits here no longer copy it.
    writeRows(database, 40)
    const fileBefore = statSync(path).size
    await checkpoints.releaseAfterCheckpoint()
    expect(statSync(path).size).toBeGreaterThan(fileBefore + 40 * 4_000)
    database.close()
  }, 30_000)

  it("leaves the log to the file's other connections when one of them closes", async () => {
    const { checkpoints: firstCheckpoints, ...first } = await openWithThread()
    const second = openSqliteDatabase(first.path)
    open.push(second)
    const secondCheckpoints = joinWalCheckpoints(first.path, second, small)
    writeRows(second, 40)
    const fileBefore = statSync(first.path).size
    await firstCheckpoints.releaseAfterCheckpoint()
    expect(statSync(first.path).size).toBe(fileBefore)
    expect(secondCheckpoints.inBackground).toBe(true)
    secondCheckpoints.release()
  }, 30_000)

  it('one thread per file: a connection that joins later stops checkpointing on commit too', async () => {
    const { checkpoints: firstCheckpoints, ...first } = await openWithThread()
    const second = openSqliteDatabase(first.path)
    open.push(second)
    const secondCheckpoints = joinWalCheckpoints(first.path, second, small)
    expect(secondCheckpoints.inBackground).toBe(true)
    expect(second.pragma('wal_autocheckpoint', { simple: true })).toBe(0)
    firstCheckpoints.release()
    first.database.close()
    // The thread stays for the file's other connection.
    writeRows(second, 5)
    expect(await secondCheckpoints.checkpointNow()).toMatchObject({
      busy: 0,
      checkpointed: expect.any(Number),
    })
    secondCheckpoints.release()
    // The last one gone, the file starts over: no thread until its log grows again.
    const third = openSqliteDatabase(first.path)
    open.push(third)
    expect(joinWalCheckpoints(first.path, third, small).inBackground).toBe(false)
  }, 30_000)

  it('a thread that cannot run gives the checkpoints back to SQLite', async () => {
    const broken = join(folder, 'broken-sqlite.cjs')
    writeFileSync(broken, "throw new Error('no SQLite here')\n")
    const { path, database } = openFile()
    const checkpoints = joinWalCheckpoints(path, database, { ...small, sqliteModulePath: broken })
    writeRows(database, 40)
    checkpoints.noteWrite()
    expect(await checkpoints.checkpointNow()).toBeUndefined()
    expect(checkpoints.inBackground).toBe(false)
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    // And it is not tried again.
    writeRows(database, 40)
    checkpoints.noteWrite()
    expect(checkpoints.inBackground).toBe(false)
    checkpoints.release()
  }, 30_000)

  it('a thread refused at once also gives them back, and the write that asked does not throw', async () => {
    const { path, database } = openFile()
    // Not a path a thread can be handed: the thread is refused when it is created.
    const unsendable = Symbol('unsendable') as unknown as string
    const checkpoints = joinWalCheckpoints(path, database, { ...small, sqliteModulePath: unsendable })
    writeRows(database, 40)
    expect(() => checkpoints.noteWrite()).not.toThrow()
    expect(await checkpoints.checkpointNow()).toBeUndefined()
    expect(checkpoints.inBackground).toBe(false)
    expect(database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    checkpoints.release()
  })

  it('in-memory databases have no log to checkpoint', () => {
    const database = openSqliteDatabase(':memory:')
    open.push(database)
    const checkpoints = joinWalCheckpoints(':memory:', database, small)
    checkpoints.noteWrite()
    expect(checkpoints.inBackground).toBe(false)
  })
})
