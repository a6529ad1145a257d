/**
 * Context assembly with every builtin processor on, for a session whose store holds 100, 10,000
 * and 100,000 messages. The build must cost the same whatever the stored history (the loader reads
 * only the last history.max_turns turns): goal median under 5 ms.
 * Run: node --import tsx bench/context.bench.ts
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseConfig } from '../src/characters/load-config.js'
import type { CharpipeConfigInput } from '../src/config/schema.js'
import { createContextPipeline, createModelCapabilities, createTokenCounter } from '../src/context/index.js'
import { createInMemoryHistoryStore } from '../src/memory/history/in-memory-history-store.js'
import type { HistoryStore, MemoryRetriever } from '../src/memory/types.js'
import { createLogger } from '../src/shared/logger.js'
import { fillHistoryStore } from './context/fill-history-store.js'
import { measureBuilds } from './context/measure-builds.js'

const sizes = [100, 10_000, 100_000]
const iterations = Number(process.env.BENCH_ITERATIONS ?? 2000)
const scope = { character: '小樱', session: 'bench' }

// A retriever that answers at once, so the figure is the pipeline's own cost.
const memory: MemoryRetriever = {
  async search(_query, options) {
    return Array.from({ length: options.k }, (_, index) => ({
      id: `m${index}`,
      scope: options.scope,
      text: `用户提到过喜欢猫和爵士乐（第${index}条）`,
      time: Date.now() - index * 86_400_000,
      score: 0.9 - index * 0.1,
      kind: 'memory' as const,
    }))
  },
}

const configInput = (provider: string, model: string): CharpipeConfigInput => ({
  llm: { provider, model, vision: false },
  character: {
    name: '小樱',
    persona: '元气满满的高中生，说话带着{{user}}熟悉的口头禅，喜欢用颜文字。',
    injected_history: [
      { role: 'user', content: '你是谁？' },
      { role: 'assistant', content: '我是{{char}}呀，今天是{{weekday}}！' },
    ],
  },
  history: { max_turns: 10 },
  pipeline: {
    processors: {
      'regex-processor': {
        rules: [
          { pattern: '（[^）]*）', replacement: '', scope: 'history' },
          { pattern: '主人', replacement: '{{user}}', scope: 'input' },
        ],
      },
      'injection-assembler': {
        depth_injections: [
          { content: '现在是{{time}}，距离上次聊天{{idle_duration}}。', role: 'system', depth: 2 },
        ],
      },
      'merge-consecutive-roles': { enabled: true },
    },
  },
})

interface StoreFactory {
  name: string
  create(): Promise<{ store: HistoryStore; cleanup(): Promise<void> }>
}

async function loadStoreFactories(): Promise<StoreFactory[]> {
  const factories: StoreFactory[] = [
    {
      name: 'memory',
      create: async () => ({ store: createInMemoryHistoryStore(), cleanup: async () => {} }),
    },
  ]
  const sqlitePath = new URL('../src/memory/history/sqlite-history-store.ts', import.meta.url)
  if (existsSync(sqlitePath)) {
    const { createSqliteHistoryStore } = await import('../src/memory/history/sqlite-history-store.js')
    factories.push({
      name: 'sqlite',
      async create() {
        const folder = await mkdtemp(join(tmpdir(), 'charpipe-bench-'))
        const store = createSqliteHistoryStore({ path: join(folder, 'history.db') })
        return {
          store,
          cleanup: async () => {
            await store.close()
            await rm(folder, { recursive: true, force: true })
          },
        }
      },
    })
  }
  return factories
}

const logger = createLogger({ level: 'silent' })
const models: [string, string][] = [
  ['deepseek', 'deepseek-chat'],
  ['openai', 'gpt-4o-mini'],
]
const rows: string[] = []
for (const factory of await loadStoreFactories()) {
  for (const size of sizes) {
    const { store, cleanup } = await factory.create()
    await fillHistoryStore(store, scope, size)
    for (const [provider, model] of models) {
      const { config } = parseConfig(configInput(provider, model), { logger })
      const capabilities = createModelCapabilities(config)
      const pipeline = createContextPipeline()
      const services = { history: store, memory, tokenCounter: createTokenCounter(capabilities), logger }
      let messages = 0
      const result = await measureBuilds(async () => {
        const built = await pipeline.build({
          input: { session: scope.session, text: '主人回来啦，今天好累', emotion: 'sad' },
          config,
          capabilities,
          services,
        })
        messages = built.messages.length
      }, iterations)
      rows.push(
        `| ${factory.name} | ${size.toLocaleString('en-US')} | ${provider} (${model}) | ${messages} | ${result.medianMs.toFixed(3)} | ${result.p99Ms.toFixed(3)} |`,
      )
      console.log(rows.at(-1))
    }
    await cleanup()
  }
}

console.log(`\ncontext build, all builtins on, ${iterations} builds per row (ms)\n`)
console.log('| store | stored messages | model | messages sent | median ms | p99 ms |')
console.log('|---|---:|---|---:|---:|---:|')
for (const row of rows) console.log(row)
