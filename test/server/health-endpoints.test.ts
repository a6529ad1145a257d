/** `/livez`, `/healthz`, `/readyz` and the store and process figures of `/metrics`. */
import { afterEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { addStoreDeadlines } from '../../src/memory/add-store-deadlines.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import type { HistoryStore } from '../../src/memory/types.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const never = () => new Promise<never>(() => {})

async function startWithHistory(historyStore: HistoryStore) {
  return startTestServer({
    configText: 'history: { store: memory }\nmemory: { enabled: false }\n',
    createCharpipe: (config, logger) => createCharpipe(config, { historyStore, logger }),
  })
}

const answer = async (path: string) => {
  const response = await fetch(`${server!.url}${path}`)
  return { status: response.status, body: await response.json() }
}

describe('health endpoints', () => {
  it('answers ok on all three while the stores answer', async () => {
    server = await startWithHistory(createInMemoryHistoryStore())
    for (const path of ['/livez', '/healthz', '/readyz']) {
      expect(await answer(path)).toEqual({ status: 200, body: { ok: true } })
    }
  })

  it('answers 503 naming the store that does not answer, and stays alive', async () => {
    const frozen = addStoreDeadlines(
      { ...createInMemoryHistoryStore(), listMessages: never },
      { store: 'history', backend: 'memory', timeoutMs: 100 },
    )
    server = await startWithHistory(frozen)
    const expected = { status: 503, body: { ok: false, down: [{ store: 'history', reason: 'timeout' }] } }
    expect(await answer('/healthz')).toEqual(expected)
    expect(await answer('/readyz')).toEqual(expected)
    expect(await answer('/livez')).toEqual({ status: 200, body: { ok: true } })
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).toMatch(
      /charpipe_store_failures_total\{store="history",backend="memory",operation="listMessages",kind="timeout"\} 2/,
    )
  })

  it('says which store failed without the back end message', async () => {
    const broken = addStoreDeadlines(
      {
        ...createInMemoryHistoryStore(),
        listMessages: async () => {
          throw new Error('connect ECONNREFUSED 10.1.2.3:5432')
        },
      },
      { store: 'history', backend: 'postgres', timeoutMs: 1000 },
    )
    server = await startWithHistory(broken)
    const { status, body } = await answer('/healthz')
    expect(status).toBe(503)
    expect(body).toEqual({ ok: false, down: [{ store: 'history', reason: 'error' }] })
  })
})

describe('/metrics', () => {
  it('has the default process metrics and the event-loop lag', async () => {
    server = await startWithHistory(createInMemoryHistoryStore())
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).toMatch(/^process_cpu_seconds_total /m)
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds /m)
    expect(metrics).toMatch(/^nodejs_heap_size_used_bytes /m)
    expect(metrics).toContain('# TYPE charpipe_store_failures_total counter')
  })
})
