/**
 * What `import('charpipe')` loads, on the package as it is built (tsup, into a temp folder so the
 * `dist/` other suites run stays untouched): no dependency and none of the Node modules a request
 * needs, until first use; then a turn with SQLite history, a regex rule and the mock provider loads
 * them (better-sqlite3, re2js, pino) and works.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import tsupConfig from '../tsup.config.js'
import { readSubpathEntries, rootRuntimeNames } from './support/public-api.js'

const root = join(import.meta.dirname, '..')
let folder: string
let entry: string

// Records every module URL the ES module loader is asked for, one per line, in LOADED_MODULES_FILE
// (what `require` loads is added from its cache when the script ends).
const recordHooks = `
import { appendFileSync } from 'node:fs'
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_MODULES_FILE, url + '\\n')
  return next(url, context)
}`

/**
 * Runs `script` in a Node process with the built package, in `cwd` when given. `asALibraryUser`:
 * without the test runner's `VITEST` and `CHARPIPE_LOG_LEVEL`, so the logging is what a program using
 * charpipe gets.
 */
function runNode(
  script: string,
  asALibraryUser = false,
  cwd?: string,
): { modules: string[]; stdout: string; stderr: string } {
  const record = join(folder, `loaded-${Math.random().toString(36).slice(2)}.txt`)
  writeFileSync(record, '')
  const { VITEST: _runner, CHARPIPE_LOG_LEVEL: _level, ...programEnvironment } = process.env
  const environment = asALibraryUser ? programEnvironment : { ...process.env, CHARPIPE_LOG_LEVEL: 'silent' }
  const register = `import { register } from 'node:module'; register(${JSON.stringify(pathToFileURL(join(folder, 'record-hooks.mjs')).href)})`
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      `${script}
const { appendFileSync } = await import('node:fs')
const { createRequire } = await import('node:module')
for (const path of Object.keys(createRequire(import.meta.url).cache)) appendFileSync(process.env.LOADED_MODULES_FILE, path + '\\n')`,
    ],
    { cwd, encoding: 'utf8', env: { ...environment, LOADED_MODULES_FILE: record } },
  )
  if (result.status !== 0) throw new Error(`node failed: ${result.stderr}`)
  const modules = [...new Set(readFileSync(record, 'utf8').split('\n').filter(Boolean))]
  return { modules, stdout: result.stdout, stderr: result.stderr }
}

const packagesIn = (modules: string[]) =>
  [...new Set(modules.flatMap((url) => url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? []))].sort()

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'charpipe-import-'))
  const built = spawnSync('npx', ['tsup', '--no-dts', '--silent', '--out-dir', join(folder, 'dist')], {
    cwd: root,
    encoding: 'utf8',
  })
  if (built.status !== 0) throw new Error(`tsup failed: ${built.stderr}`)
  // The built files find their dependencies the way an installed package does.
  symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'), 'dir')
  writeFileSync(join(folder, 'record-hooks.mjs'), recordHooks)
  // The manifest beside the built files: a script in the folder imports `charpipe/…` by name.
  writeFileSync(join(folder, 'package.json'), readFileSync(join(root, 'package.json')))
  entry = pathToFileURL(join(folder, 'dist', 'index.js')).href
}, 120_000)

afterAll(() => rmSync(folder, { recursive: true, force: true }))

describe("import('charpipe')", () => {
  it('loads no dependency and no network or compression module', () => {
    const { modules } = runNode(`await import(${JSON.stringify(entry)})`)
    expect(modules).toContain(entry)
    expect(packagesIn(modules)).toEqual([])
    const heavyBuiltins = ['node:http', 'node:https', 'node:zlib', 'node:dns/promises', 'node:stream']
    expect(modules.filter((url) => heavyBuiltins.includes(url))).toEqual([])
  })

  it('bundles zod with its English messages only (any `import { z }` would pull in every locale)', () => {
    const { modules } = runNode(`await import(${JSON.stringify(entry)})`)
    const loaded = modules
      .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
      .map((url) => readFileSync(new URL(url), 'utf8'))
      .join('\n')
    // The bundler names the source of each bundled module in a comment.
    const locales = [...loaded.matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map((match) => match[1])
    expect(new Set(locales)).toEqual(new Set(['en']))
  })

  it('loads what a turn needs on first use, and the turn works', () => {
    const database = join(folder, 'history.db')
    const script = `
const { createCharpipe, parseConfig } = await import(${JSON.stringify(entry)})
const { config } = parseConfig({
  history: { store: 'sqlite' },
  storage: { sqlite_path: ${JSON.stringify(database)} },
  memory: { enabled: false },
  pipeline: { processors: { 'regex-processor': { rules: [{ pattern: 'wor(ld)', replacement: 'there' }] } } },
})
const charpipe = await createCharpipe(config)
let text = ''
for await (const event of charpipe.generate({ text: 'hello world', session: 'import-test' })) {
  if (event.type === 'llm_done') text = event.text
}
await charpipe.close()
console.log(JSON.stringify(text))`
    const { modules, stdout, stderr } = runNode(script, true)
    expect(JSON.parse(stdout)).toContain('hello there')
    // Without a logger a library reports only warnings and errors: a turn that goes well (its
    // migration, its turn lines) puts nothing on the program's stderr.
    expect(stderr).toBe('')
    expect(packagesIn(modules)).toEqual(expect.arrayContaining(['better-sqlite3', 'pino', 're2js']))
  })

  it("imports and exports a card through 'charpipe/characters'", () => {
    const card = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: {
        name: 'Seraphina',
        description: 'The guardian of an enchanted forest.',
        first_mes: 'You are safe now.',
      },
    }
    const script = `
const { importCharacterCard, exportCharacterCard } = await import('charpipe/characters')
const { parseConfig } = await import('charpipe')
const imported = importCharacterCard(${JSON.stringify(JSON.stringify(card))}, 'application/json')
const { config } = parseConfig({ character: imported.character })
const png = exportCharacterCard(config.character, { format: 'png' })
const again = importCharacterCard(png, 'image/png')
console.log(JSON.stringify({ id: imported.id, name: again.character.name, greeting: again.character.greeting, signature: [...png.subarray(1, 4)] }))`
    const { stdout, modules } = runNode(script, false, folder)
    expect(JSON.parse(stdout)).toEqual({
      id: 'seraphina',
      name: 'Seraphina',
      greeting: 'You are safe now.',
      signature: [...Buffer.from('PNG')],
    })
    expect(modules).toContain(pathToFileURL(join(folder, 'dist', 'characters', 'index.js')).href)
  })

  it('each built entry of package.json `exports` offers the names its source does (the chosen API)', async () => {
    const entries = readSubpathEntries()
    const urls = Object.fromEntries(
      Object.entries(entries).map(([subpath, file]) => [
        subpath,
        pathToFileURL(join(folder, 'dist', `${file}.js`)).href,
      ]),
    )
    const { stdout } = runNode(`
const urls = ${JSON.stringify(urls)}
const names = {}
for (const [subpath, url] of Object.entries(urls)) names[subpath] = Object.keys(await import(url)).sort()
console.log(JSON.stringify(names))`)
    const built = JSON.parse(stdout) as Record<string, string[]>
    expect(built['.']).toEqual(rootRuntimeNames)
    const sources = (tsupConfig as { entry: Record<string, string> }).entry
    for (const [subpath, file] of Object.entries(entries)) {
      const source = Object.keys(await import(join(root, sources[file] as string))).sort()
      expect(built[subpath], subpath).toEqual(source)
    }
  })
})
