/**
 * How tests start `charpipe`: `node <arguments>`. Under vitest's integration tier the CLI bundled for
 * the run (see `build-test-cli.ts`); otherwise (a file run on its own outside that tier) the sources
 * through the TypeScript loader.
 */
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { inject } from 'vitest'

const repoRoot = resolve(import.meta.dirname, '../..')
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

/** The node arguments that run `charpipe …args`, from any working directory. */
export function cliArguments(args: string[]): string[] {
  const bundled = inject('charpipeCli')
  if (bundled) return [bundled, ...args]
  return ['--import', tsxLoader, join(repoRoot, 'src/cli/entry.ts'), ...args]
}
