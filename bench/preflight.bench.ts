/**
 * Preflight: the time from the final input to the first sentence (`llm_sentence`), with and without
 * an early transcript sent before it, against the mock model server over HTTP with a set time to
 * first token (TTFT_MS, default 600 ms). GAP_MS is how long before the final input the early
 * transcript arrived (end-of-turn detection and the final transcript, in a voice pipeline).
 * Run: npm run bench -- preflight      (TURNS=5 TTFT_MS=600)
 */
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseConfig } from '../src/characters/load-config.js'
import { createCharpipe } from '../src/engine/index.js'
import { createLogger } from '../src/shared/logger.js'
import { startMockModelServer } from '../src/testing/index.js'

const turns = Number(process.env.TURNS ?? 5)
const ttftMs = Number(process.env.TTFT_MS ?? 600)
const logger = createLogger({ level: 'silent' })
const model = await startMockModelServer({
  respond: () => ({
    text: '好的，我明白了。我们接着说下一件事。',
    chunkSize: 4,
    delayMs: 20,
    firstTokenDelayMs: ttftMs,
  }),
})
const config = parseConfig(
  {
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0 },
    history: { store: 'memory' },
    memory: { enabled: false },
  },
  { logger },
).config
const charpipe = await createCharpipe(config, { logger })

interface Scenario {
  /** Milliseconds between the early transcript and the final input; undefined: no early transcript. */
  gapMs?: number
  /** The final words differ from the early ones (the prepared turn is dropped). */
  changed?: boolean
}

/** Final input → first sentence, and the turn report's `preflight_saved_ms`. */
async function runTurn(
  scenario: Scenario,
  index: number,
): Promise<{ firstSentenceMs: number; savedMs: number }> {
  const session = `bench-${index}-${Math.random()}`
  if (scenario.gapMs !== undefined) {
    for await (const _ of charpipe.generate({ session, text: '明天早上几点出发', preflight: true })) {
    }
    await sleep(scenario.gapMs)
  }
  const text = scenario.changed ? '后天下午几点出发？' : '明天早上几点出发？'
  const started = performance.now()
  let firstSentenceMs = Number.NaN
  let savedMs = 0
  for await (const event of charpipe.generate({ session, text })) {
    if (event.type === 'llm_sentence' && Number.isNaN(firstSentenceMs))
      firstSentenceMs = performance.now() - started
    if (event.type === 'llm_done') savedMs = event.timing?.preflight_saved_ms ?? 0
  }
  return { firstSentenceMs, savedMs }
}

async function measure(scenario: Scenario) {
  const samples: number[] = []
  const saved: number[] = []
  const requestsBefore = model.requests.length
  for (let index = 0; index < turns; index++) {
    const result = await runTurn(scenario, index)
    samples.push(result.firstSentenceMs)
    saved.push(result.savedMs)
  }
  samples.sort((left, right) => left - right)
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  return {
    'p50 (ms)': median(samples).toFixed(1),
    'max (ms)': samples.at(-1)!.toFixed(1),
    'saved p50 (ms)': median(saved).toFixed(1),
    'model requests / turn': ((model.requests.length - requestsBefore) / turns).toFixed(1),
  }
}

console.log(`Preflight: final input → first sentence, time to first token ${ttftMs} ms, ${turns} turns each`)
// One turn first, so loading the stages is not counted in the first row.
await runTurn({}, -1)
const table: Record<string, Awaited<ReturnType<typeof measure>>> = {}
table['no preflight'] = await measure({})
for (const gapMs of [200, 400, 800]) {
  table[`preflight ${gapMs} ms before, same words`] = await measure({ gapMs })
}
table['preflight 400 ms before, other words'] = await measure({ gapMs: 400, changed: true })
console.table(table)
const stats = charpipe.inspect.preflight?.()
console.log(
  `prepared ${stats?.started}, adopted ${stats?.adopted}, dropped ${JSON.stringify(stats?.dropped)}, wasted requests ${stats?.wastedRequests}`,
)
await charpipe.close()
await model.close()
