/**
 * Import cost: wall time of `import('charpipe')` (the built package) and the RSS of a library user
 * who then runs one turn with the builtin mock provider, beside `import('openai')` measured the
 * same way in the same run. Each figure is the median of RUNS fresh Node processes; the cases take
 * turns run after run.
 *
 * Run: node --import tsx bench/import.bench.ts      (RUNS=9; builds the package first when stale)
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ensureBuilt } from './built-package.js'

const runs = Number(process.env.RUNS ?? 9)
ensureBuilt()
const entry = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href

interface Case {
  what: string
  script: string
  times: number[]
  rss: number[]
}

const report =
  'console.log((performance.now() - started).toFixed(1), (process.memoryUsage().rss / 1e6).toFixed(1))'
const cases: Case[] = [
  { what: 'openai SDK', script: `const started = performance.now(); await import('openai'); ${report}` },
  {
    what: 'charpipe',
    script: `const started = performance.now(); await import(${JSON.stringify(entry)}); ${report}`,
  },
  {
    what: 'charpipe + one mock turn',
    script: `const started = performance.now()
const { createCharpipe, parseConfig } = await import(${JSON.stringify(entry)})
const charpipe = await createCharpipe(parseConfig({ history: { store: 'memory' }, memory: { enabled: false } }).config)
for await (const _event of charpipe.generate({ text: '你好' })) {}
await charpipe.close()
${report}`,
  },
].map((entry) => ({ ...entry, times: [], rss: [] }))

// The cases take turns, run after run, so a change in the machine's load reaches them all alike.
for (let run = 0; run < runs; run++) {
  for (const item of cases) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', item.script], {
      encoding: 'utf8',
    })
    if (result.status !== 0) throw new Error(`${item.what}: ${result.stderr}`)
    const [time, memory] = result.stdout.trim().split(' ').map(Number)
    item.times.push(time!)
    item.rss.push(memory!)
  }
}
const median = (values: number[]) => [...values].sort((left, right) => left - right)[values.length >> 1]!
const openai = median(cases[0]!.times)
const table = cases.map((item) => ({
  what: item.what,
  'import (ms)': median(item.times).toFixed(0),
  '× openai': (median(item.times) / openai).toFixed(2),
  'RSS (MB)': median(item.rss).toFixed(0),
}))
console.log(`Import cost: median of ${runs} fresh processes each`)
console.table(table)
