import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { createCommitGate } from '../../src/memory/commit-gate.js'
import { loadOptionalPeer } from '../../src/memory/history/load-optional-peer.js'
import { createRedisHistoryStore } from '../../src/memory/history/redis-history-store.js'
import { isWriteNotApplied } from '../../src/memory/write-not-applied.js'
import { buildTurn, describeHistoryStoreContract } from '../../src/testing/history-store-contract.js'
import {
  createTestKeyPrefix,
  deleteKeysUnder,
  findRedisSkipReason,
  testRedisUrl,
} from '../support/local-redis.js'

const url = testRedisUrl
// A prefix of its own per run, so the suite never touches other keys and can remove all of its own.
const keyPrefix = createTestKeyPrefix()
const skipReason = await findRedisSkipReason()
if (skipReason) console.warn(`redis history store tests skipped: ${skipReason}`)

afterAll(async () => {
  if (!skipReason) await deleteKeysUnder(keyPrefix)
})

describeHistoryStoreContract({
  name: 'redis',
  createStore: () => createRedisHistoryStore({ url, keyPrefix }),
  reopenStore: () => createRedisHistoryStore({ url, keyPrefix }),
  validatesInput: true,
  checksDeadline: true,
  skipReason,
})

describe.skipIf(skipReason !== undefined)('createRedisHistoryStore', () => {
  it('keeps a session in one list under charpipe:history:{character}:session, and leaves a given client open', async () => {
    const client = new Redis(url)
    const store = await createRedisHistoryStore({ client, keyPrefix })
    const scope = { character: `小助手-${randomUUID()}`, session: 'user:1' }
    await store.appendTurn(scope, buildTurn(1))
    await store.close()
    const key = `${keyPrefix}history:{${scope.character}}:user%3A1`
    expect(await client.type(key)).toBe('list')
    const entries = (await client.lrange(key, 0, -1)).map((json) => JSON.parse(json))
    expect(entries.map((entry) => [entry.role, entry.content])).toEqual([
      ['user', '问题 1'],
      ['assistant', '回答 1'],
    ])
    expect(await client.smembers(`${keyPrefix}history-sessions:{${scope.character}}`)).toEqual(['user:1'])
    await client.quit()
  })

  it('sends a write unless its caller gave up on it first: a script is sent whole or not at all', async () => {
    const store = await createRedisHistoryStore({ url, keyPrefix })
    const scope = { character: `小助手-${randomUUID()}`, session: 'given-up' }
    const givenUp = createCommitGate()
    givenUp.close()
    const failure = await store
      .appendTurn(scope, buildTurn(1), { commitGate: givenUp.gate })
      .catch((error: unknown) => error)
    expect(isWriteNotApplied(failure)).toBe(true)
    expect(await store.findTurn(scope, 'turn-1')).toEqual([])
    // Sent as the call is made: given up on after that, it may have landed.
    const sent = createCommitGate()
    const write = store.appendTurn(scope, buildTurn(1), { commitGate: sent.gate })
    expect(sent.close()).toBe('sent')
    await write
    expect(await store.findTurn(scope, 'turn-1')).toHaveLength(2)
    await store.close()
  })
})

describe('createRedisHistoryStore without a server', () => {
  it("a write a caller's client could not send (not connected, no offline queue) is certainly not stored", async () => {
    const client = new Redis({ lazyConnect: true, enableOfflineQueue: false })
    const store = await createRedisHistoryStore({ client })
    const failure = await store
      .appendTurn({ character: 'c', session: 's' }, buildTurn(1))
      .catch((error: unknown) => error)
    expect(failure).toMatchObject({ message: expect.stringContaining("Stream isn't writeable") })
    expect(isWriteNotApplied(failure)).toBe(true)
    client.disconnect()
  })

  it('names the host, not the password, when it cannot connect', async () => {
    const attempt = createRedisHistoryStore({ url: 'redis://someone:hunter2secret@127.0.0.1:1' })
    await expect(attempt).rejects.toThrow(/cannot connect to Redis at redis:\/\/127\.0\.0\.1:1/)
    await expect(attempt).rejects.not.toThrow(/hunter2secret/)
  })

  it('asks for a url or a client', async () => {
    await expect(createRedisHistoryStore({})).rejects.toThrow(/give url \(storage\.redis_url\) or client/)
  })

  it('says which package to install when an optional peer is missing', async () => {
    await expect(
      loadOptionalPeer({
        packageName: 'charpipe-peer-that-is-not-installed',
        neededFor: 'history.store: redis',
      }),
    ).rejects.toThrow('install charpipe-peer-that-is-not-installed to use history.store: redis')
  })
})
