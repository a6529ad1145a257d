/**
 * Private PostgreSQL and Redis instances for the fault suite: started on free ports in a temporary
 * folder, and killed, frozen (SIGSTOP, as in a network partition) and restarted by the tests. The
 * shared instances other suites use are never touched.
 *
 * PostgreSQL refuses to run as root, so under root its commands run as the `postgres` user.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  for (const version of readdirSync(root).sort().reverse()) {
    const bin = join(root, version, 'bin')
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin
  }
  return undefined
}

export function findRedisServer(): string | undefined {
  for (const path of ['/usr/bin/redis-server', '/usr/local/bin/redis-server'])
    if (existsSync(path)) return path
  return undefined
}

/**
 * Why the suite cannot run here, or undefined when it can. Under `CI=true` a missing binary is a
 * failure, not a skip: the caller throws.
 */
export function describeMissingBinaries(): string | undefined {
  const missing = [
    findPostgresBin() ? '' : 'PostgreSQL (initdb, pg_ctl)',
    findRedisServer() ? '' : 'redis-server',
  ]
    .filter(Boolean)
    .join(' and ')
  return missing ? `${missing} not installed` : undefined
}

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Every process whose parent is `pid` (PostgreSQL backends of a postmaster). */
function listChildren(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent === pid) children.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return children
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal)
    } catch {
      // Already gone.
    }
  }
}

export interface FaultyServer {
  url: string
  /** The port it listens on (127.0.0.1), for a proxy in front of it. */
  port: number
  /** SIGKILL: the server vanishes, connections drop. */
  kill(): Promise<void>
  /** SIGSTOP: connections stay open, nothing answers. */
  freeze(): void
  /** SIGCONT after `freeze`. */
  thaw(): void
  /** Starts it again on the same port (after `kill`). */
  restart(): Promise<void>
  stop(): Promise<void>
}

const asPostgres = (command: string, args: string[]) =>
  process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args)

export async function startPostgres(): Promise<FaultyServer> {
  const bin = findPostgresBin()!
  const folder = await mkdtemp(join(tmpdir(), 'charpipe-faults-pg-'))
  const data = join(folder, 'data')
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres'])
    const { stdout: group } = await run('id', ['-g', 'postgres'])
    await chown(folder, Number(stdout), Number(group))
  }
  const port = await findFreePort()
  await asPostgres(join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
    '-E',
    'UTF8',
  ])
  const start = () =>
    asPostgres(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-w',
      '-l',
      join(data, 'server.log'),
      '-o',
      `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ])
  await start()
  const processes = () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0])
    return [postmaster, ...listChildren(postmaster)]
  }
  let running = true
  const waitForEnd = async (pids: number[]) => {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (pids.every((pid) => !existsSync(`/proc/${pid}`))) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async kill() {
      const pids = processes()
      signalAll(pids, 'SIGKILL')
      await waitForEnd(pids)
      running = false
    },
    freeze: () => signalAll(processes(), 'SIGSTOP'),
    thaw: () => signalAll(processes(), 'SIGCONT'),
    async restart() {
      await start()
      running = true
    },
    async stop() {
      if (running) {
        signalAll(processes(), 'SIGCONT')
        await asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']).catch(() => {})
      }
      await rm(folder, { recursive: true, force: true })
    },
  }
}

/**
 * A private Redis. `durable`: every write is in its append-only file before Redis answers
 * (`appendfsync always`), so a kill loses nothing acknowledged, as a Redis holding history must be set up.
 */
export async function startRedis(options: { durable?: boolean } = {}): Promise<FaultyServer> {
  const binary = findRedisServer()!
  const port = await findFreePort()
  const folder = options.durable ? await mkdtemp(join(tmpdir(), 'charpipe-faults-redis-')) : undefined
  const persistence = folder
    ? ['--dir', folder, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no']
  let child: ChildProcess | undefined
  const start = async () => {
    const started = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    child = started
    await new Promise<void>((resolve, reject) => {
      let output = ''
      started.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        if (/Ready to accept connections/i.test(output)) resolve()
      })
      started.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)))
    })
    started.stdout!.resume()
  }
  await start()
  const kill = async () => {
    const current = child
    if (!current || current.exitCode !== null || current.signalCode !== null) return
    const ended = new Promise((resolve) => current.once('exit', resolve))
    current.kill('SIGCONT')
    current.kill('SIGKILL')
    await ended
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    restart: start,
    async stop() {
      await kill()
      if (folder) await rm(folder, { recursive: true, force: true })
    },
  }
}
