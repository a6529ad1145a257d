/**
 * The history stores, and the PostgreSQL memory store, under faults, with private PostgreSQL and Redis
 * instances: killed, frozen
 * (SIGSTOP) and restarted while turns run. Each case holds a bound: the turn ends with
 * `store_unavailable` and exactly one `llm_done`, an interrupt ends it, `close()` returns, the
 * process does not crash, and the store heals once the server is back. The store deadline is
 * `storage.timeout_ms: 1000`; what ended a turn is read from its events (the deadline's message, a
 * refused connection, the interrupt), not from a stopwatch; a hang fails by the test's timeout.
 *
 * Run: `npx vitest run test/faults` (skips when PostgreSQL or Redis are not installed, except
 * under `CI=true`, where that fails).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseConfig } from '../../src/characters/load-config.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { onStoreFailure, type StoreFailure } from '../../src/memory/store-failures.js'
import { checkStores } from '../../src/server/routes/health-routes.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { getLogger } from '../../src/shared/logger.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { describeMissingBinaries, type FaultyServer, startPostgres, startRedis } from './fault-processes.js'
import './cpu-load-under-ci.js'

const missing = describeMissingBinaries()
if (missing && process.env.CI === 'true') throw new Error(`fault suite under CI: ${missing}`)
if (missing) console.warn(`store fault suite skipped: ${missing}`)

let model: MockModelServer
beforeAll(async () => {
  if (missing) return
  // A reply of a second or so, so that a store can be killed or frozen while it streams.
  model = await startMockModelServer({
    script: { replies: [], default: { text: '一句话。两句话。三句话。', chunkSize: 2, delayMs: 80 } },
  })
})
afterAll(async () => {
  await model?.close()
})

interface TurnResult {
  events: CharpipeEvent[]
}

async function runTurn(
  charpipe: Charpipe,
  text: string,
  onEvent: (event: CharpipeEvent) => void = () => {},
): Promise<TurnResult> {
  const events: CharpipeEvent[] = []
  for await (const event of charpipe.generate({ session: 'faults', text })) {
    events.push(event)
    onEvent(event)
  }
  return { events }
}

const types = (result: TurnResult) => result.events.map((event) => event.type)
const errorCodes = (result: TurnResult) =>
  result.events.flatMap((event) => (event.type === 'llm_error' ? [event.code] : []))

function expectClosedOnce(result: TurnResult) {
  expect(types(result).filter((type) => type === 'llm_done')).toHaveLength(1)
  expect(types(result).at(-1)).toBe('llm_done')
}

/** Turns until one goes through cleanly (the store reconnects in the background). */
async function expectHealed(charpipe: Charpipe, withinMs = 15_000) {
  return vi.waitFor(
    async () => {
      const result = await runTurn(charpipe, '又来了')
      if (errorCodes(result).length > 0)
        throw new Error(`the store did not heal: ${JSON.stringify(result.events.at(-2))}`)
      return result
    },
    { timeout: withinMs, interval: 250 },
  )
}

async function openCharpipe(store: 'postgres' | 'redis', url: string) {
  const config = parseConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, max_retries: 0 },
    history: { store },
    storage:
      store === 'postgres' ? { postgres_url: url, timeout_ms: 1000 } : { redis_url: url, timeout_ms: 1000 },
    memory: { enabled: false },
  }).config
  return createCharpipe(config)
}

for (const store of ['postgres', 'redis'] as const) {
  describe.skipIf(missing !== undefined)(`history in ${store} under faults`, { timeout: 120_000 }, () => {
    let server: FaultyServer
    let charpipe: Charpipe
    beforeAll(async () => {
      server = store === 'postgres' ? await startPostgres() : await startRedis()
      charpipe = await openCharpipe(store, server.url)
    }, 60_000)
    afterAll(async () => {
      server?.thaw()
      await charpipe?.close()
      await server?.stop()
    })

    it('stores a turn while the server is up, and the health check says so', async () => {
      expect(await checkStores(charpipe, getLogger('health'))).toEqual([])
      const result = await runTurn(charpipe, '你好')
      expect(errorCodes(result)).toEqual([])
      expectClosedOnce(result)
      expect((await charpipe.sessions.history({ session: 'faults' })).map((message) => message.role)).toEqual(
        ['user', 'assistant'],
      )
    })

    it('killed mid-turn: the turn ends with store_unavailable and llm_done; the store heals after a restart', async () => {
      let killed: Promise<void> | undefined
      const result = await runTurn(charpipe, '杀掉', (event) => {
        if (event.type === 'llm_chunk' && !killed) killed = server.kill()
      })
      await killed
      expectClosedOnce(result)
      expect(errorCodes(result)).toEqual(['store_unavailable'])
      // While it is down, a turn fails fast and says why.
      const down = await runTurn(charpipe, '在吗')
      expectClosedOnce(down)
      expect(errorCodes(down)).toEqual(['store_unavailable'])
      expect(down.events[0]).toMatchObject({
        message: expect.stringContaining(`the history store (${store})`),
      })
      const reason = store === 'redis' ? 'not connected to Redis' : 'ECONNREFUSED'
      expect(down.events[0]).toMatchObject({ message: expect.stringContaining(reason) })
      // Fast: on the refused connection, without sitting out the store's deadline.
      expect(down.events[0]).not.toMatchObject({ message: expect.stringContaining('did not answer within') })
      await server.restart()
      await expectHealed(charpipe)
    })

    it('frozen mid-turn: the write misses its deadline, the client hears the one answer the freeze decides, and killing the frozen server then does not crash the process', async () => {
      let frozen = false
      const result = await runTurn(charpipe, '冻住', (event) => {
        if (event.type === 'llm_chunk' && !frozen) {
          frozen = true
          server.freeze()
        }
      })
      expectClosedOnce(result)
      // Frozen before the write began, so what the write had sent is known whichever deadline fires
      // first. PostgreSQL never answered the transaction's first statement, so its COMMIT was never
      // sent, and now never will be: certainly not stored. Redis' write is one script, sent at
      // once: it may run when Redis wakes (it then refuses itself as late), and the frozen server
      // cannot be asked, so whether it landed is not known, and the client is asked to resend.
      const expected = store === 'postgres' ? 'store_unavailable' : 'store_outcome_unknown'
      expect(errorCodes(result)).toEqual([expected])
      // The write's connection is still checked out waiting for its answer: the server vanishing
      // now must be an error on that connection, not an uncaught exception.
      await server.kill()
      await server.restart()
      await expectHealed(charpipe)
      if (expected === 'store_unavailable')
        expect(
          (await charpipe.sessions.history({ session: 'faults' })).some((message) =>
            message.content.includes('冻住'),
          ),
        ).toBe(false)
    })

    it('frozen: a new turn fails within the deadline, an interrupt ends one at once, and it heals after SIGCONT', async () => {
      server.freeze()
      try {
        const result = await runTurn(charpipe, '等不到')
        expectClosedOnce(result)
        expect(errorCodes(result)).toEqual(['store_unavailable'])
        // Ended by the store's deadline, or the client's own timeout set to it (Redis' command
        // timeout, PostgreSQL's query read timeout: on a busy machine either may fire first).
        expect(result.events[0]).toMatchObject({
          message: expect.stringMatching(
            /did not answer within 1000 ms|Command timed out|Query read timeout/,
          ),
        })
        expect(await checkStores(charpipe, getLogger('health'))).toEqual([
          { store: 'history', reason: 'timeout' },
        ])
        const pending = runTurn(charpipe, '打断')
        // Interrupted as soon as it runs (an interrupt before the turn has begun finds nothing to stop).
        const interrupting = setInterval(() => void charpipe.interrupt('faults'), 20)
        const interrupted = await pending.finally(() => clearInterval(interrupting))
        expectClosedOnce(interrupted)
        expect(interrupted.events.at(-1)).toMatchObject({ interrupted: true })
        // At once: ended by the interrupt, not by the store's deadline (1000 ms), which says store_unavailable.
        expect(errorCodes(interrupted)).not.toContain('store_unavailable')
      } finally {
        server.thaw()
      }
      await expectHealed(charpipe)
      expect(await checkStores(charpipe, getLogger('health'))).toEqual([])
    })

    it('frozen: close() returns (the shutdown is not held by the store)', async () => {
      const spare = await openCharpipe(store, server.url)
      await runTurn(spare, '先说一句')
      // A turn in flight for certain: the server freezes while its reply streams, before its write.
      let frozen: (() => void) | undefined
      const freezing = new Promise<void>((resolve) => {
        frozen = resolve
      })
      try {
        const turn = runTurn(spare, '关门', (event) => {
          if (event.type === 'llm_chunk' && frozen) {
            server.freeze()
            frozen()
            frozen = undefined
          }
        })
        await freezing
        // Returns while the server is still frozen: a close held by the store would never end.
        await spare.close()
        expectClosedOnce(await turn)
      } finally {
        server.thaw()
      }
    })
  })
}

describe.skipIf(missing !== undefined)('memory in postgres under faults', { timeout: 120_000 }, () => {
  let server: FaultyServer
  let charpipe: Charpipe
  beforeAll(async () => {
    server = await startPostgres()
    const config = parseConfig({
      llm: { provider: 'custom', base_url: `${model.url}/v1`, max_retries: 0 },
      history: { store: 'memory' },
      memory: { enabled: true, store: 'postgres' },
      storage: { postgres_url: server.url, timeout_ms: 1000 },
    }).config
    charpipe = await createCharpipe(config)
  }, 60_000)
  afterAll(async () => {
    server?.thaw()
    await charpipe?.close()
    await server?.stop()
  })

  const search = () => charpipe.memory!.search('火锅', { scope: 'faults', k: 3 })

  async function expectSearchHealed(withinMs = 15_000) {
    return vi.waitFor(
      async () => {
        const found = await search().catch(() => undefined)
        if (!found) throw new Error('the memory store did not heal')
        return found
      },
      { timeout: withinMs, interval: 250 },
    )
  }

  it('remembers a turn while the server is up, and the health check says so', async () => {
    expect(await checkStores(charpipe, getLogger('health'))).toEqual([])
    await charpipe.memory!.add({ scope: 'faults', text: '我周末想去吃火锅' })
    expect((await search()).map((hit) => hit.text)).toEqual(['我周末想去吃火锅'])
  })

  it('killed: search fails with store_unavailable naming the memory store, health says so, and it heals after a restart', async () => {
    await server.kill()
    const error = await search().catch((caught: unknown) => caught)
    expect(error).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('the memory store (postgres)'),
    })
    expect(await checkStores(charpipe, getLogger('health'))).toEqual([{ store: 'memory', reason: 'error' }])
    // A turn still ends, once, while long-term memory is down.
    expectClosedOnce(await runTurn(charpipe, '还记得吗'))
    await server.restart()
    expect((await expectSearchHealed()).map((hit) => hit.text)).toContain('我周末想去吃火锅')
    expect(await checkStores(charpipe, getLogger('health'))).toEqual([])
  })

  it("frozen: the session's next turn does not wait for the previous turn's memory write, which misses its deadline and is counted", async () => {
    // The default deadline (2.5 s): a memory write on the lane held the next turn that long.
    const laneConfig = parseConfig({
      llm: { provider: 'custom', base_url: `${model.url}/v1`, max_retries: 0 },
      history: { store: 'memory' },
      memory: { enabled: true, store: 'postgres' },
      storage: { postgres_url: server.url },
    }).config
    const engine = await createCharpipe(laneConfig)
    const failures: StoreFailure[] = []
    const stopCounting = onStoreFailure((failure) => failures.push(failure))
    const addFailed = () =>
      failures.some((failure) => failure.store === 'memory' && failure.operation === 'add')
    server.freeze()
    try {
      const first = await runTurn(engine, '我喜欢喝茶')
      expectClosedOnce(first)
      const requests = model.requests.length
      const startedAt = Date.now()
      expectClosedOnce(await runTurn(engine, '晚上喝什么'))
      console.info(`frozen memory store: the next turn of the session took ${Date.now() - startedAt} ms`)
      // The second turn asked the model and ended while the first turn's memory write still waited.
      expect(model.requests.length).toBe(requests + 1)
      expect(addFailed()).toBe(false)
      // That write is bounded: it misses its deadline, and the failure is counted.
      await vi.waitFor(() => expect(addFailed()).toBe(true), { timeout: 15_000, interval: 100 })
      server.thaw()
      // Given up on, the write does not land once the server is back (its transaction refuses itself).
      const turn = first.events.at(-1)?.turn ?? ''
      const memories = await vi.waitFor(() => engine.memory!.list({ scope: 'faults', sourceTurn: turn }), {
        timeout: 15_000,
        interval: 250,
      })
      expect(memories.filter((memory) => memory.sourceTurn === turn)).toEqual([])
    } finally {
      server.thaw()
      stopCounting()
      await engine.close()
    }
  })

  it('frozen: search misses its deadline instead of hanging, and it heals after SIGCONT', async () => {
    server.freeze()
    try {
      const error = await search().catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code: 'store_unavailable', timedOut: true })
      expect(await checkStores(charpipe, getLogger('health'))).toEqual([
        { store: 'memory', reason: 'timeout' },
      ])
    } finally {
      server.thaw()
    }
    await expectSearchHealed()
    const added = await charpipe.memory!.add({ scope: 'faults', text: '火锅要微辣' })
    expect((await search()).map((hit) => hit.id)).toContain(added.id)
  })
})
