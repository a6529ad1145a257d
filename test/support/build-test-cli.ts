/**
 * Global setup of the integration tests: bundles the CLI from the current sources (`src/cli/entry.ts`)
 * into one file under `node_modules/.cache`, so that each spawned `charpipe` starts as plain
 * JavaScript instead of compiling its modules through the TypeScript loader again (about 2 s less per
 * `serve` on a busy two-core machine). Packages stay external and resolve from the repository's
 * `node_modules`, as the built package's do. The file is removed when the run ends.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled CLI (`node <file> <command>`), or '' when the tests run it from source. */
    charpipeCli: string
  }
}

const repoRoot = resolve(import.meta.dirname, '../..')

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cache = join(repoRoot, 'node_modules', '.cache', 'charpipe-test-cli')
  await mkdir(cache, { recursive: true })
  const folder = await mkdtemp(join(cache, 'run-'))
  const outfile = join(folder, 'charpipe.js')
  await build({
    entryPoints: [join(repoRoot, 'src/cli/entry.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
  project.provide('charpipeCli', outfile)
  return () => rm(folder, { recursive: true, force: true })
}
