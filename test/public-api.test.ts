/**
 * The public API as chosen: the names the bare `charpipe` import and each subpath export, values and
 * types. A name added to or dropped from an entry fails here until the list below (or the snapshot
 * of a subpath) says so: the surface changes by decision, not by a re-export passing through. The
 * built package's entries are checked against the same lists in `package-import.test.ts`.
 */
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import tsupConfig from '../tsup.config.js'
import { readSubpathEntries, rootRuntimeNames } from './support/public-api.js'

const root = join(import.meta.dirname, '..')

/** Internal helpers and optional stores that must not come with the bare import. */
const notInRoot = [
  'measureEditDistance',
  'findNearFile',
  'restoreMaskedSecrets',
  'maskSecrets',
  'substituteEnvVariables',
  'createPostgresHistoryStore',
  'createPostgresMemoryStore',
  'createRedisHistoryStore',
  'connectCluster',
]

function typeNamesOf(file: string): string[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    // Only the export lists are read: no library or @types file is needed for that.
    noLib: true,
    types: [],
  })
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  const symbol = source && checker.getSymbolAtLocation(source)
  if (!symbol) throw new Error(`no module symbol for ${file}`)
  return checker
    .getExportsOfModule(symbol)
    .map((exported) => exported.name)
    .sort()
}

describe('public API', () => {
  it('the bare import offers the chosen runtime names and no internal helper', async () => {
    const names = Object.keys(await import('../src/index.js')).sort()
    expect(names).toEqual(rootRuntimeNames)
    for (const name of notInRoot) expect(names).not.toContain(name)
  })

  it('the bare import offers the chosen types', () => {
    expect(typeNamesOf(join(root, 'src/index.ts'))).toMatchSnapshot()
  }, 60_000)

  it('every subpath of package.json is a tsup entry with types, and the reverse', () => {
    const config = tsupConfig as { entry: Record<string, string>; dts: { entry: Record<string, string> } }
    const fromManifest = Object.values(readSubpathEntries()).sort()
    const built = Object.keys(config.entry).filter((name) => name !== 'cli/main')
    expect(built.sort()).toEqual(fromManifest)
    expect(Object.keys(config.dts.entry).sort()).toEqual(fromManifest)
  })

  it('each subpath offers the names recorded for it', async () => {
    const config = tsupConfig as { entry: Record<string, string> }
    const surface: Record<string, string[]> = {}
    for (const [subpath, file] of Object.entries(readSubpathEntries())) {
      if (subpath === '.') continue
      const source = join(root, config.entry[file] as string)
      surface[subpath] = Object.keys(await import(source)).sort()
    }
    expect(surface).toMatchSnapshot()
  }, 60_000)
})
