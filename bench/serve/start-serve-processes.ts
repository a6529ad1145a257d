/**
 * A real `charpipe serve` and a real `charpipe mock-llm`, each in its own child process and both
 * from the built package (`bin/charpipe.js`, what users run), for benches that measure the server
 * from a client's side. The server runs with the default stores (SQLite history and long-term
 * memory, memory on) in a temp folder, pointed at the mock. Its process also loads
 * `loop-monitor.ts`, which reports the worst event-loop delay over IPC on request.
 * `BENCH_CPU_PROF=DIR` writes a CPU profile of the server process into DIR when it stops
 * (`BENCH_CPU_PROF_INTERVAL=µs` samples more often than Node's 1,000 µs).
 * `BENCH_SERVER_NODE_FLAGS='--flag …'` adds Node flags to the server process alone, to compare a
 * setting of `serve`'s own (`serveNodeFlags`) without changing the clients' process.
 * `BENCH_WIRE_TRACE=1` loads `wire-trace.mjs` into the server: when each of its sockets read and
 * wrote, for `readWireTrace` (the first-chunk and r6 benches' tables of steps), on `sharedClock`.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serveAllocatorEnvironment, serveNodeFlags } from '../../src/cli/relaunch-with-node-flags.js'
import type { MockReply } from '../../src/testing/index.js'
import { ensureBuilt } from '../built-package.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const cli = join(root, 'bin', 'charpipe.js')
const monitor = join(dirname(fileURLToPath(import.meta.url)), 'loop-monitor.mjs')
const wireTrace = join(dirname(fileURLToPath(import.meta.url)), 'wire-trace.mjs')

/** Milliseconds since the epoch, the clock of the wire trace: the same reading in every process. */
export const sharedClock = () => performance.timeOrigin + performance.now()

/**
 * One socket event of the server process: when (ms since the epoch), which, its local and remote
 * port, and the process's CPU time until then (ms).
 */
export type WireNote = [
  time: number,
  kind: 'read' | 'write',
  localPort: number,
  remotePort: number,
  cpuMs: number,
]

/**
 * A gap between two ticks of the server's 2 ms timer: its wall time past the 2 ms, and the server
 * process's CPU time in it (every thread: an upper bound of the main thread's).
 */
export interface LoopGap {
  wallMs: number
  cpuMs: number
}

/** What `loop-monitor.mjs` reports of the server's event loop since the last reset. */
export interface LoopDelay {
  maxMs: number
  p99Ms: number
  /** The longest gap. */
  worstGap: LoopGap
  /** The gap with the most CPU time in it: the server's own longest stretch of work, at most. */
  busiestGap: LoopGap
}

export interface ServeProcesses {
  /** `http://127.0.0.1:PORT` of `charpipe serve`. */
  serverUrl: string
  /** `http://127.0.0.1:PORT/v1` of `charpipe mock-llm`. */
  mockUrl: string
  /** Resets the server's event-loop delay histogram. */
  resetLoopDelay(): Promise<void>
  /** The server's worst event-loop delay (ms) since the last reset, and its gaps (`loop-monitor.mjs`). */
  readLoopDelay(): Promise<LoopDelay>
  /** The server process's CPU time (user + system, µs) since it started. */
  readCpu(): Promise<number>
  /** The server's socket reads and writes since the last call (`BENCH_WIRE_TRACE` only; else none). */
  readWireTrace(): Promise<WireNote[]>
  /** From now on, traces only the sockets of the server's own port (its clients), and forgets the rest. */
  traceClientSocketsOnly(): Promise<void>
  /** Stops both (SIGTERM: the server stores its turns and closes its stores). */
  stop(): Promise<void>
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const onData = (data: Buffer) => {
      seen += data.toString()
      const match = pattern.exec(seen)
      if (!match) return
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
      resolve(match[1]!)
    }
    const onExit = (code: number | null) => reject(new Error(`${what} exited with ${code}: ${seen}`))
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
  })
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill('SIGTERM')
  await exited
}

/**
 * Starts `charpipe mock-llm`, whose replies are `replies` one per request in order and then
 * `reply`, then `charpipe serve` pointed at it.
 */
export async function startServeProcesses(options: {
  reply: MockReply
  replies?: MockReply[]
}): Promise<ServeProcesses> {
  ensureBuilt()
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-serve-bench-'))
  const scriptPath = join(folder, 'mock-script.json')
  writeFileSync(scriptPath, JSON.stringify({ replies: options.replies ?? [], default: options.reply }))
  const mock = fork(cli, ['mock-llm', '--port', '0', '--script', scriptPath], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const mockUrl = `${await waitForLine(mock, /listening on (http:\/\/\S+)/, 'charpipe mock-llm')}/v1`

  const configPath = join(folder, 'config.yaml')
  // JSON is YAML. Everything else is the default config: SQLite history and memory, memory on.
  // The database sits in a folder of its own beside the config, as the default `./data/charpipe.db`
  // does: the server watches the config's folder, and a database in it wakes that watch at every write.
  writeFileSync(
    configPath,
    JSON.stringify({
      llm: { provider: 'custom', base_url: mockUrl, model: 'bench', max_retries: 0 },
      storage: { sqlite_path: join(folder, 'data', 'charpipe.db') },
    }),
  )
  const profileDir = process.env.BENCH_CPU_PROF
  // The flags and allocator setting `serve` would relaunch itself with, given here so the server is
  // this child itself and runs as `charpipe serve` runs.
  const extraFlags = process.env.BENCH_SERVER_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? []
  const tracing = Boolean(process.env.BENCH_WIRE_TRACE)
  const execArgv = [...serveNodeFlags, ...extraFlags, '--import', monitor]
  if (tracing) execArgv.push('--import', wireTrace)
  if (profileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`)
  // Microseconds between samples (Node's default 1,000): finer to see a turn's first milliseconds.
  const profileInterval = process.env.BENCH_CPU_PROF_INTERVAL
  if (profileDir && profileInterval) execArgv.push(`--cpu-prof-interval=${profileInterval}`)
  const server = fork(cli, ['serve', '--config', configPath, '--host', '127.0.0.1', '--port', '0'], {
    execArgv,
    env: {
      ...process.env,
      ...serveAllocatorEnvironment(),
      CHARPIPE_LOG_LEVEL: process.env.CHARPIPE_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  server.stdout!.resume()
  const serverUrl = await waitForLine(server, /charpipe listening on (http:\/\/\S+)/, 'charpipe serve')

  let requests = 0
  const ask = <T>(type: string, fields: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      const id = ++requests
      const listener = (message: { id?: number } & T) => {
        if (message.id !== id) return
        server.off('message', listener)
        resolve(message)
      }
      server.on('message', listener)
      server.send({ ...fields, type, id })
    })

  return {
    serverUrl,
    mockUrl,
    resetLoopDelay: () => ask<unknown>('loop-reset').then(() => undefined),
    readLoopDelay: () => ask<LoopDelay>('loop-read'),
    readCpu: () => ask<{ cpuUs: number }>('cpu-read').then((answer) => answer.cpuUs),
    readWireTrace: async () => (tracing ? (await ask<{ notes: WireNote[] }>('wire-read')).notes : []),
    async traceClientSocketsOnly() {
      if (tracing) await ask<unknown>('wire-filter', { localPort: Number(new URL(serverUrl).port) })
    },
    async stop() {
      await stopChild(server)
      await stopChild(mock)
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
