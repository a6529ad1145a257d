/**
 * One server of the soak's cluster: `charpipe serve` from the built package (`bin/charpipe.js`) as a
 * child process that is the server itself (the heap flag given, so it does not relaunch), with its
 * inspector open on a port of its own, so the bench reads its heap from outside.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serveAllocatorEnvironment, serveNodeFlags } from '../../src/cli/relaunch-with-node-flags.js'
import { type InspectorSession, openInspectorSession } from './inspector-session.js'

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'charpipe.js')

export interface ClusterMember {
  name: string
  /** `http://127.0.0.1:PORT`. */
  url: string
  child: ChildProcess
  inspector: InspectorSession
  /** Resident set size from /proc, in MB. */
  readRssMb(): number
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>
}

/** Resolves with the first match of `pattern` in what `stream` prints; fails if the child exits first. */
function waitForOutput(child: ChildProcess, stream: NodeJS.ReadableStream, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = ''
    const onData = (data: Buffer) => {
      seen += data.toString()
      const match = pattern.exec(seen)
      if (!match) return
      stream.off('data', onData)
      child.off('exit', onExit)
      resolve(match[1]!)
    }
    const onExit = (code: number | null) => reject(new Error(`serve exited with ${code}: ${seen}`))
    stream.on('data', onData)
    child.once('exit', onExit)
  })
}

export async function startClusterMember(options: {
  name: string
  configPath: string
  cwd: string
}): Promise<ClusterMember> {
  const child = spawn(
    process.execPath,
    [...serveNodeFlags, '--inspect=127.0.0.1:0', cli, 'serve', '--config', options.configPath, '--port', '0'],
    {
      cwd: options.cwd,
      env: { ...process.env, ...serveAllocatorEnvironment(), CHARPIPE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const debuggerUrl = waitForOutput(child, child.stderr!, /Debugger listening on (ws:\/\/\S+)/)
  const url = await waitForOutput(child, child.stdout!, /listening on (http:\/\/\S+)/)
  // Warnings still printed must not fill the pipes and stall the server.
  child.stdout!.resume()
  child.stderr!.on('data', (data: Buffer) => {
    const text = data.toString()
    // The inspector's own notices are not the server's.
    if (!/Debugger|For help, see/.test(text)) process.stderr.write(`[${options.name}] ${text}`)
  })
  const inspector = await openInspectorSession(await debuggerUrl)
  return {
    name: options.name,
    url,
    child,
    inspector,
    readRssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      const kilobytes = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN)
      return Math.round(kilobytes / 1024)
    },
    async stop() {
      inspector.close()
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    },
  }
}
