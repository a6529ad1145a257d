/**
 * The recall budget (`memory.recall_timeout_ms`) end to end: a memory store that stops answering
 * (a real SQLite store frozen on command) costs a turn at most the budget before the model is asked,
 * on the engine's manual clock; that turn's `llm_done` says `memory: "timed_out"` and the server's
 * `/metrics` counts it. A store that answers in time puts its memories in the prompt, and a search
 * that fails after the budget leaves no unhandled rejection.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createInMemoryHistoryStore, createSqliteMemoryStore } from '../../src/memory/index.js'
import { type CharpipeServer, createServer, createServerMetrics } from '../../src/server/index.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { messageText } from '../../src/shared/messages.js'
import { createScriptedProvider, type ScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents, createManualClock, doneOf, type ManualClock } from '../../src/testing/index.js'
import { createFreezableMemoryStore, type FreezableMemoryStore } from './freezable-memory-store.js'

interface Setup {
  clock: ManualClock
  provider: ScriptedProvider
  store: FreezableMemoryStore
  charpipe: Charpipe
}

let setup: Setup | undefined
let server: CharpipeServer | undefined
let folder: string | undefined
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)

afterEach(async () => {
  process.off('unhandledRejection', onUnhandled)
  unhandled.length = 0
  await server?.close()
  server = undefined
  if (setup) {
    // The turn's own memory write searches the store too: a frozen one is let go before closing.
    setup.store.thaw()
    setup.store.failFrozen(new Error('closing'))
    await setup.charpipe.close()
  }
  setup = undefined
  if (folder) await rm(folder, { recursive: true, force: true })
  folder = undefined
})

async function setUp(
  options: { recallTimeoutMs?: number; observers?: Parameters<typeof createCharpipe>[1] } = {},
) {
  const clock = createManualClock()
  const provider = createScriptedProvider([{ chunks: ['Tea, as always.'] }, { chunks: ['Still tea.'] }])
  const store = createFreezableMemoryStore(createSqliteMemoryStore({ path: ':memory:' }))
  await store.add({ scope: 'room', text: 'Mika drinks jasmine tea every morning.' })
  const memory = {
    enabled: true,
    ...(options.recallTimeoutMs === undefined ? {} : { recall_timeout_ms: options.recallTimeoutMs }),
  }
  const charpipe = await createCharpipe(makeConfig({ memory, character: { reply_format: 'plain' } }), {
    provider,
    clock,
    historyStore: createInMemoryHistoryStore(),
    memoryStore: store,
    ...options.observers,
  })
  setup = { clock, provider, store, charpipe }
  return setup
}

const ask = (charpipe: Charpipe) =>
  collectEvents(charpipe.generate({ session: 'room', text: 'What does Mika drink in the morning?' }))

const promptOf = (provider: ScriptedProvider, index: number) =>
  provider.requests[index]!.messages.map((message) => messageText(message)).join('\n')

/** Lets the turn's promise work run until the recall has been asked for, with the clock still. */
async function untilSearched(store: FreezableMemoryStore, count: number) {
  await vi.waitFor(() => expect(store.searches).toBe(count))
}

describe('the recall budget (memory.recall_timeout_ms)', () => {
  it('a frozen store: the model is asked once the budget passes, without memories, and llm_done says timed_out', async () => {
    const { clock, provider, store, charpipe } = await setUp()
    store.freeze()
    const events = ask(charpipe)
    await untilSearched(store, 1)
    await clock.advance(149)
    expect(provider.requests).toHaveLength(0)
    await clock.advance(1)
    const done = doneOf(await events)
    expect(done.memory).toBe('timed_out')
    expect(done.interrupted).toBe(false)
    expect(done.text).toBe('Tea, as always.')
    expect(provider.requests).toHaveLength(1)
    expect(promptOf(provider, 0)).not.toContain('jasmine')
    // Timed on the engine's clock: the first chunk waited for memory exactly the budget.
    expect(done.timing?.first_chunk_ms).toBe(150)
  })

  it('takes its budget from the config, on the manual clock and not the wall', async () => {
    const { clock, provider, store, charpipe } = await setUp({ recallTimeoutMs: 60_000 })
    store.freeze()
    const events = ask(charpipe)
    await untilSearched(store, 1)
    await clock.advance(59_999)
    expect(provider.requests).toHaveLength(0)
    await clock.advance(1)
    expect(doneOf(await events).memory).toBe('timed_out')
  })

  it('a store that answers within the budget: its memory is in the prompt and llm_done has no memory field', async () => {
    const { provider, charpipe } = await setUp()
    const done = doneOf(await ask(charpipe))
    expect(promptOf(provider, 0)).toContain('Mika drinks jasmine tea every morning.')
    expect(done).not.toHaveProperty('memory')
  })

  it('a search that fails after the budget leaves no unhandled rejection, and the next turn recalls again', async () => {
    process.on('unhandledRejection', onUnhandled)
    const { clock, provider, store, charpipe } = await setUp()
    store.freeze()
    const events = ask(charpipe)
    await untilSearched(store, 1)
    await clock.advance(150)
    expect(doneOf(await events).memory).toBe('timed_out')
    store.thaw()
    store.failFrozen(new Error('the server gave up'))
    await new Promise<void>((resolve) => setImmediate(resolve))
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
    const next = doneOf(await ask(charpipe))
    expect(next).not.toHaveProperty('memory')
    expect(promptOf(provider, 1)).toContain('jasmine')
  })

  it("counts timed-out recalls in the server's charpipe_memory_recall_timeouts_total", async () => {
    folder = await mkdtemp(join(tmpdir(), 'charpipe-recall-'))
    const metrics = createServerMetrics()
    const { clock, store, charpipe } = await setUp({ observers: { observers: [metrics.observeTurn] } })
    server = await createServer({
      config: parseConfig({}).config,
      configPath: join(folder, 'config.yaml'),
      staticDir: folder,
      watchConfig: false,
      charpipe,
      metrics,
    })
    const readCounter = async () => {
      const text = await (await server!.app.request('http://127.0.0.1/metrics')).text()
      const line = text
        .split('\n')
        .find((candidate) => candidate.startsWith('charpipe_memory_recall_timeouts_total '))
      return line === undefined ? undefined : Number(line.split(' ')[1])
    }
    expect(await readCounter()).toBe(0)
    // A turn whose recall answers is not counted.
    doneOf(await ask(charpipe))
    expect(await readCounter()).toBe(0)
    store.freeze()
    const events: Promise<CharpipeEvent[]> = ask(charpipe)
    await untilSearched(store, 2)
    await clock.advance(150)
    expect(doneOf(await events).memory).toBe('timed_out')
    expect(await readCounter()).toBe(1)
  })
})
