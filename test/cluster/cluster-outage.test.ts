/** Redis of the cluster going away and coming back, through a proxy the test can cut. */
import { connect, createServer, type Server, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/create-charpipe.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createInMemoryHistoryStore } from '../../src/memory/index.js'
import { checkStores } from '../../src/server/routes/health-routes.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeParts } from '../../src/testing/create-fake-engine-parts.js'
import { createScriptedProvider } from '../../src/testing/create-scripted-provider.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { collectEvents } from '../../src/testing/turn-events.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const logger = createLogger({ level: 'silent' })
const target = new URL(testRedisUrl)

/** A TCP proxy to Redis that can be cut (every connection dropped, new ones refused) and restored. */
function startProxy() {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname)
        for (const socket of [client, upstream]) {
          sockets.add(socket)
          socket.on('error', () => {})
          socket.on('close', () => sockets.delete(socket))
        }
        client.pipe(upstream).pipe(client)
      })
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port
        resolve()
      })
    })
  return {
    listen,
    url: () => `redis://127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server!.close(() => resolve())
      }),
  }
}

let charpipe: Charpipe | undefined
afterAll(async () => {
  await charpipe?.close()
  await deleteKeys()
})

describe.skipIf(skipReason !== undefined)('the cluster when Redis goes away', { timeout: 30_000 }, () => {
  it('ends turns with store_unavailable at once, says so on the health check, and recovers when Redis is back', async () => {
    const proxy = startProxy()
    await proxy.listen()
    const config = makeConfig({
      storage: { redis_url: proxy.url(), timeout_ms: 300 },
      cluster: { enabled: true, key_prefix: keyPrefix },
    })
    charpipe = await createCharpipe(config, {
      parts: createFakeParts(),
      provider: createScriptedProvider([{ chunks: ['一。'] }, { chunks: ['三。'] }]),
      historyStore: createInMemoryHistoryStore(),
      logger,
    })
    const first = await collectEvents(charpipe.generate({ text: 'a', session: 'o' }))
    expect(first.at(-1)).toMatchObject({ type: 'llm_done', text: '一。' })
    expect(await checkStores(charpipe, logger)).toEqual([])

    await proxy.cut()
    const during = await collectEvents(charpipe.generate({ text: 'b', session: 'o' }))
    expect(during).toContainEqual(expect.objectContaining({ type: 'llm_error', code: 'store_unavailable' }))
    // Refused on a command deadline, not after sitting out cluster.lock_wait_ms (30 s by default).
    const refusal = during.find((event) => event.type === 'llm_error') as { message: string }
    expect(refusal.message).not.toContain('lock_wait_ms')
    expect(during.at(-1)).toMatchObject({ type: 'llm_done', text: '' })
    expect(await checkStores(charpipe, logger)).toEqual([{ store: 'cluster', reason: expect.any(String) }])

    await proxy.listen()
    let after = await collectEvents(charpipe.generate({ text: 'c', session: 'o' }))
    for (
      let attempt = 0;
      attempt < 40 && after.at(-1)?.type === 'llm_done' && (after.at(-1) as { text: string }).text === '';
      attempt++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      after = await collectEvents(charpipe.generate({ text: 'c', session: 'o' }))
    }
    expect(after.at(-1)).toMatchObject({ type: 'llm_done', text: '三。' })
    expect(await checkStores(charpipe, logger)).toEqual([])
  })
})
