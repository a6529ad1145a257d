/**
 * The built package (`dist/`, what `charpipe serve` runs), for benches of the whole server. Source
 * run through the TypeScript loader is not the same program: the loader wraps every closure it
 * creates to keep its name, which costs CPU and heap on every turn and every chunk. Built here when
 * `dist/` is missing or older than `src/`.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

function newestSourceChange(directory: string): number {
  let newest = 0
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestSourceChange(path) : statSync(path).mtimeMs)
  }
  return newest
}

function builtAt(): number {
  try {
    return statSync(join(root, 'dist', 'index.js')).mtimeMs
  } catch {
    return 0
  }
}

/** Builds `dist/` unless it is newer than every file of `src/`. */
export function ensureBuilt(): void {
  if (builtAt() > newestSourceChange(join(root, 'src'))) return
  console.error('building dist/ for the bench (npm run build)…')
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (result.status !== 0) throw new Error('npm run build failed; the bench needs dist/')
}

const entry = (subpath: string) => pathToFileURL(join(root, 'dist', subpath, 'index.js')).href

/** The package's main entry, typed as the source it is built from. */
export const importBuiltPackage = () => import(entry('.')) as Promise<typeof import('../src/index.js')>
export const importBuiltServer = () =>
  import(entry('server')) as Promise<typeof import('../src/server/index.js')>
export const importBuiltTesting = () =>
  import(entry('testing')) as Promise<typeof import('../src/testing/index.js')>
