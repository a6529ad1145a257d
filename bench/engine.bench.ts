/**
 * Engine latency: (1) from the model's chunk that completes a sentence to the `llm_sentence` event
 * seen by the caller's `for await`, with an in-process fake provider and over HTTP from a local
 * streaming server; (2) interrupt latency, from `interrupt()` to `llm_done`, both ways.
 * Run: node --import tsx bench/engine.bench.ts
 */
import { performance } from 'node:perf_hooks'
import { parseConfig } from '../src/characters/load-config.js'
import type { CharpipeConfigInput } from '../src/config/schema.js'
import { createCharpipe } from '../src/engine/index.js'
import { createInMemoryHistoryStore } from '../src/memory/index.js'
import { createLogger } from '../src/shared/logger.js'
import { createTimedProvider } from './engine/create-timed-provider.js'
import { startTimedSseServer } from './engine/timed-sse-server.js'

const rounds = Number(process.env.ROUNDS ?? 200)
const logger = createLogger({ level: 'silent' })
// 10 sentences of 3 chunks each; the third chunk of each completes the sentence.
const chunks = Array.from({ length: 10 }, (_, index) => [
  `这是第${index + 1}`,
  '个句子，内容',
  '不长。',
]).flat()

function summarize(samples: number[]) {
  const sorted = [...samples].sort((left, right) => left - right)
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))]!
  return {
    samples: sorted.length,
    median_ms: at(0.5).toFixed(3),
    p99_ms: at(0.99).toFixed(3),
    max_ms: at(1).toFixed(3),
  }
}

function config(overrides: CharpipeConfigInput = {}) {
  return parseConfig(
    {
      history: { store: 'memory' },
      memory: { enabled: false },
      character: { reply_format: 'plain' },
      ...overrides,
    },
    { logger },
  ).config
}

async function measureSentenceLatency(kind: 'fake' | 'http') {
  const samples: number[] = []
  const fake = createTimedProvider({ chunks, delayMs: 1 })
  const server = kind === 'http' ? await startTimedSseServer({ chunks, delayMs: 1 }) : undefined
  const charpipe = await createCharpipe(
    config(server ? { llm: { provider: 'custom', base_url: `${server.url}/v1`, max_retries: 0 } } : {}),
    { logger, historyStore: createInMemoryHistoryStore(), ...(server ? {} : { provider: fake.provider }) },
  )
  const turns = Math.max(1, Math.floor(rounds / 10))
  for (let turn = 0; turn < turns; turn++) {
    const seen: number[] = []
    for await (const event of charpipe.generate({ text: '讲点什么', session: `s${turn % 4}` })) {
      if (event.type === 'llm_sentence') seen.push(performance.now())
    }
    const writes = server ? server.sentenceWrites[turn]! : fake.stamps[turn]!
    for (let index = 0; index < Math.min(writes.length, seen.length); index++)
      samples.push(seen[index]! - writes[index]!)
  }
  await charpipe.close()
  await server?.close()
  return summarize(samples)
}

async function measureInterruptLatency(kind: 'fake' | 'http') {
  const samples: number[] = []
  const fake = createTimedProvider({ chunks, delayMs: 1, hang: true })
  const server = kind === 'http' ? await startTimedSseServer({ chunks, delayMs: 1, hang: true }) : undefined
  const charpipe = await createCharpipe(
    config(server ? { llm: { provider: 'custom', base_url: `${server.url}/v1`, max_retries: 0 } } : {}),
    { logger, historyStore: createInMemoryHistoryStore(), ...(server ? {} : { provider: fake.provider }) },
  )
  for (let round = 0; round < rounds; round++) {
    let interruptedAt = 0
    let sentences = 0
    for await (const event of charpipe.generate({ text: '讲', session: 'i' })) {
      if (event.type === 'llm_sentence' && ++sentences === 2) {
        interruptedAt = performance.now()
        void charpipe.interrupt('i')
      }
      if (event.type === 'llm_done') samples.push(performance.now() - interruptedAt)
    }
  }
  await charpipe.close()
  await server?.close()
  return summarize(samples)
}

const table: Record<string, ReturnType<typeof summarize>> = {}
table['chunk → llm_sentence (fake provider)'] = await measureSentenceLatency('fake')
table['chunk → llm_sentence (HTTP, OpenAI SSE)'] = await measureSentenceLatency('http')
table['interrupt() → llm_done (fake provider)'] = await measureInterruptLatency('fake')
table['interrupt() → llm_done (HTTP, OpenAI SSE)'] = await measureInterruptLatency('http')
console.table(table)
