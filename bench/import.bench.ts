/**
 * Import cost: wall time of `import('charpipe')` (the built package) and the RSS of a library user
 * who then runs one turn with the builtin mock provider, beside `import('openai')` measured the
 * same way in the same run. Each figure is the median of RUNS fresh Node processes.
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

function measure(label: string, script: string) {
  const times: number[] = []
  const rss: number[] = []
  for (let run = 0; run < runs; run++) {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${label}: ${result.stderr}`)
    const [time, memory] = result.stdout.trim().split(' ').map(Number)
    times.push(time!)
    rss.push(memory!)
  }
  const median = (values: number[]) => [...values].sort((left, right) => left - right)[values.length >> 1]!
  return { what: label, 'import (ms)': median(times).toFixed(0), 'RSS (MB)': median(rss).toFixed(0) }
}

const report =
  'console.log((performance.now() - started).toFixed(1), (process.memoryUsage().rss / 1e6).toFixed(1))'
const table = [
  measure('openai SDK', `const started = performance.now(); await import('openai'); ${report}`),
  measure('charpipe', `const started = performance.now(); await import(${JSON.stringify(entry)}); ${report}`),
  measure(
    'charpipe + one mock turn',
    `const started = performance.now()
const { createCharpipe, parseConfig } = await import(${JSON.stringify(entry)})
const charpipe = await createCharpipe(parseConfig({ history: { store: 'memory' }, memory: { enabled: false } }).config)
for await (const _event of charpipe.generate({ text: '你好' })) {}
await charpipe.close()
${report}`,
  ),
]
console.log(`Import cost: median of ${runs} fresh processes each`)
console.table(table)
