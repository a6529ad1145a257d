/**
 * `charpipe serve` as a real child process (the CLI bundled for the run, see `cli-command.ts`), for
 * tests that kill it, restart it or run several: `--config` the given file, `--port 0`.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'
import { serveNodeFlags } from '../../src/cli/relaunch-with-node-flags.js'
import { cliArguments } from './cli-command.js'

/** The command line of `node … serve` with the given switches. */
export function serveCommand(switches: string[]): string[] {
  return cliArguments(['serve', ...switches])
}

/** The command line of `node … serve`, for tests that spawn it their own way. */
export function serveArguments(configPath: string): string[] {
  return serveCommand(['--config', configPath, '--port', '0'])
}

export function spawnServe(configPath: string, options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, serveArguments(configPath), options)
}

/**
 * The server process itself: with the heap flag on its command line, `serve` does not relaunch
 * itself, so a signal sent to the child reaches the server (SIGKILL of a launcher would only make the
 * server shut down gracefully, storing its running turn).
 */
export function spawnServeProcess(configPath: string, options: SpawnOptions = {}): ChildProcess {
  return spawn(process.execPath, [...serveNodeFlags, ...serveArguments(configPath)], options)
}

export interface WatchedServe {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** The signal that ended the process, or its exit code. */
  exited: Promise<NodeJS.Signals | number | null>
}

/** Keeps what a spawned `serve` prints (its stdio piped), and when it ends. */
export function watchServe(child: ChildProcess): WatchedServe {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    child.once('exit', (code, signal) => done(signal ?? code)),
  )
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/**
 * The URL of the listening line, as soon as it is printed; fails with what `serve` printed if it
 * exits first. (A server that never listens fails by the test's timeout.)
 */
export function waitForListening(serve: WatchedServe): Promise<string> {
  const { child } = serve
  return new Promise<string>((resolve, reject) => {
    const finish = () => {
      child.stdout!.off('data', check)
      child.off('close', onExit)
    }
    function check(): boolean {
      const match = serve.stdout().match(/listening on (http:\/\/\S+)/)
      if (!match) return false
      finish()
      resolve(match[1]!)
      return true
    }
    function onExit() {
      if (check()) return
      finish()
      reject(new Error(`serve exited: ${serve.stderr()}${serve.stdout()}`))
    }
    // Listeners added after watchServe's own: by the time one runs, the chunk is in `stdout()`.
    child.stdout!.on('data', check)
    // 'close', not 'exit': by then everything it printed has been read.
    child.once('close', onExit)
    if (!check() && child.exitCode !== null && child.stdout!.readableEnded) onExit()
  })
}

/** Stops a `serve` still running (SIGTERM) and waits until it has gone. */
export async function stopServe(serve: WatchedServe): Promise<void> {
  if (serve.child.exitCode === null && serve.child.signalCode === null) {
    serve.child.kill('SIGTERM')
    await serve.exited
  }
}
