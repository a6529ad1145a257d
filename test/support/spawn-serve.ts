/**
 * `charpipe serve` as a real child process, run from source through the TypeScript loader, for
 * tests that kill it, restart it or run several: `--config` the given file, `--port 0`.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { serveNodeFlags } from '../../src/cli/relaunch-with-node-flags.js'

const repoRoot = resolve(import.meta.dirname, '../..')
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** The command line of `node … serve`, for tests that spawn it their own way. */
export function serveArguments(configPath: string): string[] {
  return [
    '--import',
    tsxLoader,
    join(repoRoot, 'src/cli/entry.ts'),
    'serve',
    '--config',
    configPath,
    '--port',
    '0',
  ]
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
