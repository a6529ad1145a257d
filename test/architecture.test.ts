/**
 * The architecture rules of `.dependency-cruiser.cjs` (docs/architecture/overview.md as layers):
 * the source keeps them, and the rules catch what they are there for (an upward import, a module
 * cycle, a folder placed in no layer), shown on a small tree of files made for the test.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser'
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
  forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden']
  options: ICruiseOptions
}
const temporary: string[] = []

afterAll(() => {
  for (const folder of temporary) rmSync(folder, { recursive: true, force: true })
})

async function findViolations(baseDir: string): Promise<IViolation[]> {
  const { options } = config
  const result = await cruise(
    ['src'],
    {
      ...options,
      baseDir,
      tsConfig: { fileName: join(root, 'tsconfig.json') },
      ruleSet: { forbidden: config.forbidden },
      validate: true,
    },
    {},
    { tsConfig: extractTSConfig(join(root, 'tsconfig.json')) },
  )
  if (typeof result.output === 'string') throw new Error('expected a cruise result')
  return result.output.summary.violations
}

/** A small tree of source files made for a test, in a folder of its own. */
function writeTree(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'charpipe-architecture-'))
  temporary.push(folder)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true })
    writeFileSync(join(folder, path), text)
  }
  return folder
}

const describeViolation = (violation: IViolation) =>
  `${violation.rule.name}: ${violation.from} → ${violation.to}`

describe('architecture', () => {
  it('every folder of src/ is placed in a layer', () => {
    const rule = config.forbidden?.find((candidate) => candidate.name === 'folder-not-placed')
    const placed = new RegExp(String(rule?.from.pathNot))
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((entry) =>
      entry.isDirectory(),
    )
    expect(folders.length).toBeGreaterThan(10)
    const unplaced = folders.map((entry) => entry.name).filter((name) => !placed.test(`src/${name}/index.ts`))
    expect(unplaced, 'place these folders in a layer of .dependency-cruiser.cjs').toEqual([])
  })

  it('the source keeps the layering and has no module cycle', async () => {
    const violations = await findViolations(root)
    expect(violations.map(describeViolation)).toEqual([])
  }, 180_000)

  it('the rules catch an upward import, a cycle, a folder in no layer, the page importing the engine, product code importing tests, a test under src/ importing the root test/ folder and config/ importing characters/', async () => {
    const files: Record<string, string> = {
      'src/shared/log.ts': "import { run } from '../engine/run.js'\nexport const log = () => run()\n",
      'src/engine/run.ts': 'export const run = () => 1\n',
      'src/tools/a.ts': "import { b } from './b.js'\nexport const a = () => b()\n",
      'src/tools/b.ts': "import { a } from './a.js'\nexport const b = (): number => a()\n",
      'src/elsewhere/thing.ts': "import { run } from '../engine/run.js'\nexport const thing = run\n",
      'src/web/page.ts': "import { run } from '../engine/run.js'\nexport const page = run\n",
      'src/engine/run.test.ts': "import { log } from '../shared/log.js'\nexport const check = log\n",
      'src/characters/card.ts': 'export const card = 1\n',
      'src/config/load.ts': "import { card } from '../characters/card.js'\nexport const load = card\n",
      'test/support/fake.ts': 'export const fake = 1\n',
      'src/memory/store.ts': "import { fake } from '../../test/support/fake.js'\nexport const store = fake\n",
      'src/memory/store.test.ts':
        "import { fake } from '../../test/support/fake.js'\nexport const checked = fake\n",
      'src/reply/parse-helpers.test.ts': 'export const example = 1\n',
      'src/reply/parse.ts':
        "import { example } from './parse-helpers.test.js'\nexport const parse = example\n",
    }
    const found = (await findViolations(writeTree(files))).map(describeViolation)
    expect(found).toEqual(
      expect.arrayContaining([
        'no-upward-import-from-shared: src/shared/log.ts → src/engine/run.ts',
        'no-circular: src/tools/a.ts → src/tools/b.ts',
        'folder-not-placed: src/elsewhere/thing.ts → src/engine/run.ts',
        'web-only-over-http: src/web/page.ts → src/engine/run.ts',
        'no-upward-import-from-config: src/config/load.ts → src/characters/card.ts',
        'no-product-import-of-tests: src/memory/store.ts → test/support/fake.ts',
        'no-product-import-of-tests: src/reply/parse.ts → src/reply/parse-helpers.test.ts',
        'no-root-test-import-from-src-tests: src/memory/store.test.ts → test/support/fake.ts',
      ]),
    )
    // A test under src/ may reach any folder of src/.
    expect(found.filter((line) => line.includes('run.test.ts'))).toEqual([])
  }, 120_000)

  it('the rules keep the turn runner behind the modules that start turns, entered at turn/start-turn.ts', async () => {
    const files: Record<string, string> = {
      'src/engine/turn/run-turn.ts': 'export const runTurn = () => 1\n',
      'src/engine/turn/start-turn.ts':
        "import { runTurn } from './run-turn.js'\nexport const startTurn = () => runTurn()\n",
      'src/engine/turn-outcome.ts': 'export const outcome = 1\n',
      // A starter entering at the entry, the runner reaching below it, a test reaching in: all allowed.
      'src/engine/create-turn-methods.ts':
        "import { startTurn } from './turn/start-turn.js'\nexport const generate = startTurn\n",
      'src/engine/turn/write-turn.ts':
        "import { outcome } from '../turn-outcome.js'\nexport const writeTurn = outcome\n",
      'src/engine/persist-turn.test.ts':
        "import { runTurn } from './turn/run-turn.js'\nexport const checked = runTurn\n",
      // A part the runner calls importing the runner back, a starter going past the entry, a folder
      // above the engine reaching in: each forbidden.
      'src/engine/persist-turn.ts':
        "import { runTurn } from './turn/run-turn.js'\nexport const persist = runTurn\n",
      'src/engine/create-charpipe.ts':
        "import { runTurn } from './turn/run-turn.js'\nexport const createCharpipe = runTurn\n",
      'src/testing/fake.ts':
        "import { startTurn } from '../engine/turn/start-turn.js'\nexport const fake = startTurn\n",
    }
    const found = (await findViolations(writeTree(files))).map(describeViolation)
    expect(found.toSorted()).toEqual([
      'turn-runner-entered-at-start-turn: src/engine/create-charpipe.ts → src/engine/turn/run-turn.ts',
      'turn-runner-entered-only-by-turn-starters: src/engine/persist-turn.ts → src/engine/turn/run-turn.ts',
      'turn-runner-entered-only-by-turn-starters: src/testing/fake.ts → src/engine/turn/start-turn.ts',
    ])
  }, 120_000)
})
