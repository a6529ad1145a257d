/**
 * Checkpoints of a SQLite file's write-ahead log on a worker thread, once the file writes enough for
 * them to matter. SQLite copies the log back into the database inside the commit that takes the log
 * past `wal_autocheckpoint` pages (1,000 by default): 4 MB copied and, with `synchronous = NORMAL`,
 * the log and the file synced, on the event loop in the middle of some turn (23 ms of a 49 ms stall
 * in a profile of the giant-reply bench). Once a file's
 * log passes `startBytes`, a worker thread with a connection of its own runs PASSIVE checkpoints
 * (which wait for no reader or writer) as the stores here write, and the file's connections in this
 * thread stop checkpointing on commit. A file that never writes that much (a small library use, most
 * tests) never starts a thread. Should the thread fail, SQLite's own checkpoints come back.
 *
 * One worker per file, shared by every store that opened it (the history and the memory store of
 * the default `charpipe.db`); it ends when the last of them closes.
 */
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'
import { getLogger, type Logger } from '../shared/logger.js'
import { nextTurnOfEventLoop } from '../shared/next-turn-of-event-loop.js'
import { resolveSqlitePackage } from './open-sqlite-database.js'

export interface WalCheckpoints {
  /**
   * After a write transaction: reads the log's size until it passes `startBytes`, then starts the
   * worker, and asks it to checkpoint (at most every `checkEveryMs`).
   */
  noteWrite(): void
  /** Asks the worker for a checkpoint now; its result, or undefined without a running worker. */
  checkpointNow(): Promise<CheckpointResult | undefined>
  /** Whether a worker checkpoints this file. */
  readonly inBackground: boolean
  /** The connection is closing: the worker ends with the file's last connection. */
  release(): void
  /**
   * `release()` for a connection about to close, the file's last: the worker first copies the log
   * back. Closing a file's last connection copies what is left of its log on the closing thread,
   * with the log and the file synced: 40 ms for a 3 MB log on the event loop, under 1 ms after a
   * checkpoint on the worker.
   */
  releaseAfterCheckpoint(): Promise<void>
}

/** What `PRAGMA wal_checkpoint` answered: pages in the log, and how many of them are copied back. */
export interface CheckpointResult {
  busy: number
  log: number
  checkpointed: number
}

export interface WalCheckpointOptions {
  /** Log size from which checkpoints move to a worker. @default 1 MiB */
  startBytes?: number
  /** The least time between two checkpoints the writes ask the worker for. @default 100 */
  checkEveryMs?: number
  /** The module the worker loads better-sqlite3 from (tests give a broken one). */
  sqliteModulePath?: string
  logger?: Logger
}

/** SQLite's default `wal_autocheckpoint`, restored when the worker fails. */
const sqliteAutocheckpointPages = 1_000

interface FileCheckpoints {
  path: string
  connections: Set<Database.Database>
  state: 'sqlite' | 'starting' | 'worker' | 'failed'
  /** While `starting`: resolves once the thread is created (in a turn of the loop of its own). */
  starting?: Promise<void>
  worker?: Worker
  lastCheck: number
  inFlight: Promise<CheckpointResult | undefined> | undefined
  nextRequest: number
  waiting: Map<number, (result: CheckpointResult | undefined) => void>
  options: Required<Omit<WalCheckpointOptions, 'sqliteModulePath' | 'logger'>> &
    Pick<WalCheckpointOptions, 'sqliteModulePath'> & { logger: Logger }
}

const files = new Map<string, FileCheckpoints>()

// CommonJS, as an `eval` worker is: one connection, a PASSIVE checkpoint per request.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqliteModulePath)
const database = new Database(workerData.path, { fileMustExist: true, timeout: 0 })
parentPort.on('message', (message) => {
  if (message.type === 'close') {
    database.close()
    parentPort.close()
    return
  }
  try {
    const [result] = database.pragma('wal_checkpoint(PASSIVE)')
    parentPort.postMessage({ id: message.id, result })
  } catch {
    // Another checkpoint or a lock in the way: the next write asks again.
    parentPort.postMessage({ id: message.id })
  }
})
`

const noCheckpoints: WalCheckpoints = {
  noteWrite: () => {},
  checkpointNow: async () => undefined,
  inBackground: false,
  release: () => {},
  releaseAfterCheckpoint: async () => {},
}

/** Joins `database` (a connection to the file at `path`, in WAL mode) to the file's checkpoints. */
export function joinWalCheckpoints(
  path: string,
  database: Database.Database,
  options: WalCheckpointOptions = {},
): WalCheckpoints {
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return noCheckpoints
  const key = resolve(path)
  let file = files.get(key)
  if (!file) {
    file = {
      path: key,
      connections: new Set(),
      state: 'sqlite',
      lastCheck: Number.NEGATIVE_INFINITY,
      inFlight: undefined,
      nextRequest: 0,
      waiting: new Map(),
      options: {
        startBytes: options.startBytes ?? 1024 * 1024,
        checkEveryMs: options.checkEveryMs ?? 100,
        sqliteModulePath: options.sqliteModulePath,
        logger: options.logger ?? getLogger('storage'),
      },
    }
    files.set(key, file)
  }
  const joined = file
  joined.connections.add(database)
  if (joined.state === 'worker') database.pragma('wal_autocheckpoint = 0')
  let released = false
  return {
    noteWrite() {
      if (released || joined.state === 'failed' || joined.state === 'starting') return
      if (joined.state === 'sqlite') {
        // Read after every write (a stat, microseconds): the slices of one knowledge-base document
        // took the log past SQLite's own checkpoint size (4 MB) within 100 ms, and that checkpoint
        // ran inside a commit on the event loop, the file synced (22 ms).
        if (readLogBytes(joined.path) < joined.options.startBytes) return
        // Creating a thread takes milliseconds of this one: not inside the write that asked.
        joined.state = 'starting'
        joined.starting = nextTurnOfEventLoop().then(() => {
          if (files.get(joined.path) !== joined) return
          try {
            startWorker(joined)
          } catch (error) {
            // A thread refused at once (the process's limits): as if it had started and died.
            handBackToSqlite(joined, error)
            return
          }
          void requestCheckpoint(joined)
        })
        return
      }
      const now = performance.now()
      if (now - joined.lastCheck < joined.options.checkEveryMs) return
      joined.lastCheck = now
      void requestCheckpoint(joined)
    },
    checkpointNow,
    get inBackground() {
      return joined.state === 'worker'
    },
    release,
    async releaseAfterCheckpoint() {
      if (!released && joined.connections.size === 1) await checkpointNow()
      release()
    },
  }
  async function checkpointNow(): Promise<CheckpointResult | undefined> {
    if (joined.state === 'starting') await joined.starting
    return requestCheckpoint(joined)
  }
  function release(): void {
    if (released) return
    released = true
    joined.connections.delete(database)
    if (joined.connections.size > 0) return
    files.delete(joined.path)
    if (joined.state === 'starting') joined.state = 'sqlite'
    stopWorker(joined)
  }
}

/** The log's size; 0 when it cannot be read (the write that asked has committed: it must not throw). */
function readLogBytes(path: string): number {
  try {
    return statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0
  } catch {
    return 0
  }
}

function startWorker(file: FileCheckpoints): void {
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: {
      path: file.path,
      sqliteModulePath: file.options.sqliteModulePath ?? resolveSqlitePackage(),
    },
  })
  // A checkpoint thread never keeps the process alive.
  worker.unref()
  file.worker = worker
  file.state = 'worker'
  for (const connection of file.connections) connection.pragma('wal_autocheckpoint = 0')
  worker.on('message', (message: { id: number; result?: CheckpointResult }) => {
    file.waiting.get(message.id)?.(message.result)
    file.waiting.delete(message.id)
  })
  worker.on('error', (error) => failWorker(file, worker, error))
  worker.on('exit', (code) => {
    if (file.worker === worker) failWorker(file, worker, new Error(`the thread exited with code ${code}`))
  })
}

/** The thread is gone: SQLite checkpoints on commit again, as it did before the thread started. */
function failWorker(file: FileCheckpoints, worker: Worker, error: unknown): void {
  if (file.worker !== worker) return
  file.worker = undefined
  handBackToSqlite(file, error)
  void worker.terminate()
}

/** For good: no thread is tried again for this file while it stays open. */
function handBackToSqlite(file: FileCheckpoints, error: unknown): void {
  file.state = 'failed'
  for (const connection of file.connections)
    if (connection.open) connection.pragma(`wal_autocheckpoint = ${sqliteAutocheckpointPages}`)
  for (const answer of file.waiting.values()) answer(undefined)
  file.waiting.clear()
  file.options.logger.warn(
    { err: error, path: file.path },
    'SQLite checkpoints could not run on their thread; the writes checkpoint as they commit',
  )
}

function stopWorker(file: FileCheckpoints): void {
  const worker = file.worker
  if (!worker) return
  file.worker = undefined
  for (const answer of file.waiting.values()) answer(undefined)
  file.waiting.clear()
  worker.postMessage({ type: 'close' })
}

/** One checkpoint at a time: a request while one runs shares its answer. */
function requestCheckpoint(file: FileCheckpoints): Promise<CheckpointResult | undefined> {
  const worker = file.worker
  if (!worker) return Promise.resolve(undefined)
  if (file.inFlight) return file.inFlight
  const id = ++file.nextRequest
  const answer = new Promise<CheckpointResult | undefined>((settle) => file.waiting.set(id, settle))
  file.inFlight = answer.finally(() => {
    file.inFlight = undefined
  })
  worker.postMessage({ type: 'checkpoint', id })
  return file.inFlight
}
