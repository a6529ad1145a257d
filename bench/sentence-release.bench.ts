/**
 * Sentence release: the time from the model chunk that holds a sentence's terminator to the
 * `llm_sentence` event, with `sentence.early_release` on (the default) and off (waiting for the next
 * chunk to confirm the end). Real tokenizers emit `。` as a chunk of its own, so with release off a
 * sentence waits one token interval before speech synthesis can start.
 *
 * The fake provider streams in process at a steady token interval (TOKEN_MS, default 30 ms).
 * Run: node --import tsx bench/sentence-release.bench.ts      (TURNS=10 TOKEN_MS=30)
 */
import { performance } from 'node:perf_hooks'
import { parseConfig } from '../src/characters/load-config.js'
import { createCharpipe } from '../src/engine/index.js'
import { createInMemoryHistoryStore } from '../src/memory/index.js'
import { createLogger } from '../src/shared/logger.js'
import { createTimedProvider } from './engine/create-timed-provider.js'

const turns = Number(process.env.TURNS ?? 10)
const tokenMs = Number(process.env.TOKEN_MS ?? 30)
const logger = createLogger({ level: 'silent' })

/** Ten sentences; in `own` every terminator is a chunk of its own, in `inside` it shares a chunk with the next words. */
function streamChunks(layout: 'own' | 'inside'): string[] {
  const chunks: string[] = []
  for (let index = 1; index <= 10; index++) {
    chunks.push(`这是第${index}`, '个句子，', '内容不长')
    if (layout === 'own') chunks.push(index % 2 ? '。' : '！')
    else chunks.push(index % 2 ? '。接着' : '！然后')
  }
  return chunks
}

async function measure(layout: 'own' | 'inside', earlyRelease: boolean) {
  const { provider, stamps } = createTimedProvider({ chunks: streamChunks(layout), delayMs: tokenMs })
  const config = parseConfig(
    {
      history: { store: 'memory' },
      memory: { enabled: false },
      character: { reply_format: 'plain' },
      sentence: { early_release: earlyRelease },
    },
    { logger },
  ).config
  const charpipe = await createCharpipe(config, {
    logger,
    provider,
    historyStore: createInMemoryHistoryStore(),
  })
  const samples: number[] = []
  for (let turn = 0; turn < turns; turn++) {
    const seen: number[] = []
    for await (const event of charpipe.generate({ text: '讲点什么', session: 'bench' })) {
      if (event.type === 'llm_sentence') seen.push(performance.now())
    }
    const writes = stamps[turn]!
    for (let index = 0; index < Math.min(writes.length, seen.length); index++)
      samples.push(seen[index]! - writes[index]!)
  }
  await charpipe.close()
  samples.sort((left, right) => left - right)
  const at = (quantile: number) =>
    samples[Math.min(samples.length - 1, Math.floor(quantile * samples.length))]!
  return {
    sentences: samples.length,
    'p50 (ms)': at(0.5).toFixed(2),
    'p95 (ms)': at(0.95).toFixed(2),
    'max (ms)': at(1).toFixed(2),
  }
}

console.log(
  `Sentence release: terminator chunk → llm_sentence, token interval ${tokenMs} ms, ${turns} turns each`,
)
const table: Record<string, Awaited<ReturnType<typeof measure>>> = {}
table['terminator ends its chunk, early_release on'] = await measure('own', true)
table['terminator ends its chunk, early_release off'] = await measure('own', false)
table['terminator inside a chunk, early_release on'] = await measure('inside', true)
table['terminator inside a chunk, early_release off'] = await measure('inside', false)
console.table(table)
