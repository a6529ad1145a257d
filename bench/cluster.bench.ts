/**
 * What the cluster adds to a turn: wall time of one whole turn (from `generate` to `llm_done`, the
 * turn stored, the session's lock released) with `cluster.enabled` off and on, against the local
 * Redis (`REDIS_URL`, default redis://127.0.0.1:6379), for both `on_new_input` modes. The model is an
 * in-process fake that answers at once and history is in memory, so the difference is the cluster's
 * own cost: a lock take, a check before storing and a release (plus numbering the input and one
 * publish with `interrupt`) — a few Redis round trips.
 *
 * Run: node --import tsx bench/cluster.bench.ts      (ROUNDS=500; keys under a random prefix, removed)
 */
import { performance } from 'node:perf_hooks'
import { parseConfig } from '../src/characters/load-config.js'
import type { CharpipeConfigInput } from '../src/config/schema.js'
import { createCharpipe } from '../src/engine/index.js'
import { createInMemoryHistoryStore } from '../src/memory/index.js'
import { createLogger } from '../src/shared/logger.js'
import { createFakeProvider } from '../src/testing/index.js'
import { createTestKeyPrefix, deleteKeysUnder, testRedisUrl } from '../test/support/local-redis.js'

const rounds = Number(process.env.ROUNDS ?? 500)
const logger = createLogger({ level: 'silent' })
const keyPrefix = createTestKeyPrefix()

function summarize(samples: number[]) {
  const sorted = [...samples].sort((left, right) => left - right)
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))]!
  return { median: at(0.5), p99: at(0.99) }
}

async function measure(cluster: boolean, mode: 'interrupt' | 'queue') {
  const overrides: CharpipeConfigInput = {
    history: { store: 'memory' },
    memory: { enabled: false },
    character: { reply_format: 'plain' },
    conversation: { on_new_input: mode },
    ...(cluster
      ? { storage: { redis_url: testRedisUrl }, cluster: { enabled: true, key_prefix: keyPrefix } }
      : {}),
  }
  const charpipe = await createCharpipe(parseConfig(overrides, { logger }).config, {
    provider: createFakeProvider(),
    historyStore: createInMemoryHistoryStore(),
    logger,
  })
  const samples: number[] = []
  try {
    // Warm-up turns are not counted.
    for (let round = -20; round < rounds; round++) {
      const started = performance.now()
      for await (const event of charpipe.generate({ text: '你好', session: `bench-${round % 50}` })) {
        if (event.type === 'llm_error') throw new Error(`${event.code}: ${event.message}`)
      }
      if (round >= 0) samples.push(performance.now() - started)
    }
  } finally {
    await charpipe.close()
  }
  return summarize(samples)
}

const rows = []
for (const mode of ['queue', 'interrupt'] as const) {
  const off = await measure(false, mode)
  const on = await measure(true, mode)
  rows.push({
    on_new_input: mode,
    'off median (ms)': off.median.toFixed(3),
    'on median (ms)': on.median.toFixed(3),
    'added median (ms)': (on.median - off.median).toFixed(3),
    'off p99 (ms)': off.p99.toFixed(3),
    'on p99 (ms)': on.p99.toFixed(3),
  })
}
await deleteKeysUnder(keyPrefix)
console.log(`cluster on vs off: one whole turn, ${rounds} turns each, Redis ${new URL(testRedisUrl).host}`)
console.table(rows)
