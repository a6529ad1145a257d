/**
 * The architecture of docs/architecture/overview.md as rules, checked by `npm run check:architecture`
 * and by `test/architecture.test.ts` (so `npm test` and CI fail when it is broken).
 *
 * Every folder of src/ sits in one layer below. Product code imports only from its own layer or the
 * layers below it; tests (`*.test.ts`) may reach any folder of src/, but the root test/ folder is
 * for the tests in test/ alone. No module cycles at all. A folder of src/ that is in no layer fails
 * the check: a new folder is a decision about where it belongs.
 * Inside `engine/`, the turn runner (`engine/turn/`) is imported only by the modules that start turns
 * (`turnStarters` below), through `turn/start-turn.ts`.
 *
 * Adding a folder: put its name in the layer that matches what it imports and who imports it (a
 * folder that drives the product from outside, like `connectors/`, sits above `engine/`; a policy the
 * engine consults, like `audience/`, below it; a gate every config passes through sits with
 * `config/`, or in its own layer just above `shared/` if `config/` imports it).
 */
const layers = [
  // The contracts every stage uses: errors, events, messages, the logger.
  ['shared'],
  // The config file's schema, its checks and its trust gate.
  ['config'],
  // Characters and their cards, and the config loader, which merges `characters_dir` into a config.
  ['characters'],
  // Stages that need only the config: stores, providers, the reply parser, tools, and the audience
  // selector the engine asks which chat messages a turn answers.
  ['memory', 'providers', 'reply', 'tools', 'audience'],
  // The context pipeline (reads memory) and the cluster (leases over the history stores).
  ['context', 'cluster'],
  // One turn end to end.
  ['engine'],
  // Producers of turns besides a client's own input (chat platforms feeding the audience), and the
  // admission every door passes (the connectors' host goes through it, and so does the server).
  ['connectors', 'admission'],
  // The edges: the server, bridges to other frameworks, the mock model server and fakes.
  ['server', 'adapters', 'testing'],
  // The commands.
  ['cli'],
]

/** The page runs in the browser: it reaches the server only over HTTP and the WebSocket. */
const webMayImport = ['web', 'shared', 'config', 'context']

const placed = [...layers.flat(), 'web']
const testFile = '\\.test\\.tsx?$'
const productCode = { pathNot: testFile }

/**
 * `engine/turn/` is the turn runner and the units it calls. The modules that start turns enter it,
 * through its one entry (`turn/start-turn.ts`), and nothing else imports it: what the runner and the
 * parts it calls both use (the turn's outcome, its event type, its timer) sits below it in `engine/`.
 * A new way to start a turn is a decision: name its module here.
 */
const turnStarters = [
  // `generate` and `run`.
  'src/engine/create-turn-methods.ts',
  // The audience's turns and idle turns.
  'src/engine/create-audience-methods.ts',
  // The turn that answers an event (`sessions.event` with `respond: true`).
  'src/engine/create-say-methods.ts',
  // Hands `startWithheldTurn` to the prepared turns (preflight), which start a turn ahead of its input.
  'src/engine/create-charpipe.ts',
]
const turnStartersPattern = `^(${turnStarters.map((path) => path.replaceAll('.', '\\.')).join('|')})$`

const layerRules = layers.flatMap((layer, index) => {
  const above = layers.slice(index + 1).flat()
  if (above.length === 0) return []
  return layer.map((folder) => ({
    name: `no-upward-import-from-${folder}`,
    comment: `${folder}/ is below ${above.join(', ')}: it must not import them`,
    severity: 'error',
    from: { path: `^src/${folder}/`, ...productCode },
    to: { path: `^src/(${[...above, 'web'].join('|')})/` },
  }))
})

/**
 * A test under src/ tests its folder with what the package offers: the helpers a library user also
 * needs come from `charpipe/testing` (src/testing/). A test that needs the root test/ folder's
 * helpers (PostgreSQL, Redis, a spawned `charpipe`) is an integration test and lives in test/.
 */
const srcTestsStayInSrc = {
  name: 'no-root-test-import-from-src-tests',
  comment:
    'a test under src/ imports the root test/ folder: move the helper to src/testing/ or the test to test/',
  severity: 'error',
  from: { path: '^src/.+\\.test\\.tsx?$' },
  to: { path: '^test/' },
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a module cycle: one of the two must not know the other',
      severity: 'error',
      // The one allowed: the page's field and its list of objects render each other (a field can be
      // a list whose columns are fields), which is recursion of the data, not a layering knot.
      from: { pathNot: '^src/web/components/(schema-field|object-list-editor)\\.tsx$' },
      to: { circular: true },
    },
    {
      name: 'folder-not-placed',
      comment: 'a folder of src/ that is in no layer of .dependency-cruiser.cjs: place it there',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/((${placed.join('|')})/|index\\.ts$)` },
      to: {},
    },
    {
      name: 'web-only-over-http',
      comment: 'the page reaches the server only over HTTP and the WebSocket',
      severity: 'error',
      from: { path: '^src/web/', ...productCode },
      // memory-scope-of.ts is a pure function the page shares to show a session's memory scope.
      to: { path: '^src/', pathNot: `^src/((${webMayImport.join('|')})/|memory/memory-scope-of\\.ts$)` },
    },
    {
      name: 'no-product-import-of-tests',
      comment: 'product code never imports a test, a test helper or the root test/ folder',
      severity: 'error',
      from: { path: '^src/', ...productCode },
      to: { path: ['\\.test\\.tsx?$', '^test/', '-test-helpers\\.ts$'] },
    },
    {
      name: 'turn-runner-entered-only-by-turn-starters',
      comment:
        'only the modules that start turns import engine/turn/; what the runner and the parts it calls share belongs below it in engine/',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/engine/turn/', turnStartersPattern, testFile] },
      to: { path: '^src/engine/turn/' },
    },
    {
      name: 'turn-runner-entered-at-start-turn',
      comment: 'a module that starts turns enters engine/turn/ through its one entry, turn/start-turn.ts',
      severity: 'error',
      from: { path: turnStartersPattern },
      to: { path: '^src/engine/turn/', pathNot: '^src/engine/turn/start-turn\\.ts$' },
    },
    ...layerRules,
    srcTestsStayInSrc,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|test)/',
  },
}
