import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { type ClusterRedis, connectClusterRedis } from '../../src/cluster/connect-cluster-redis.js'
import { createConfigVersionSeal } from '../../src/cluster/seal-config-version.js'
import { type ConfigSync, startConfigSync } from '../../src/cluster/start-config-sync.js'
import { type CharpipeConfig, configSchema } from '../../src/config/schema.js'
import { createLogger } from '../../src/shared/logger.js'
import { prepareTestRedis, testRedisUrl } from '../support/local-redis.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const logger = createLogger({ level: 'silent' })
const opened: { redis: ClusterRedis; sync: ConfigSync; adopted: Record<string, unknown>[] }[] = []
const sharedSecret = 'test-shared-secret-0123456789'
const nameOf = (shared: Record<string, unknown>) => (shared.character as { name: string }).name

const configNamed = (name: string) => configSchema.parse({ character: { name } })

async function startServer(initial: CharpipeConfig, checkIntervalMs = 1000) {
  const redis = await connectClusterRedis({ url: testRedisUrl, keyPrefix, timeoutMs: 1000, logger })
  const adopted: Record<string, unknown>[] = []
  const sync = await startConfigSync({
    redis,
    initial,
    sharedSecret,
    adopt: async (config) => {
      adopted.push(config)
    },
    logger,
    checkIntervalMs,
  })
  opened.push({ redis, sync, adopted })
  return { sync, adopted }
}

afterAll(async () => {
  for (const { redis, sync } of opened) {
    sync.close()
    await redis.close()
  }
  await deleteKeys()
})

describe.skipIf(skipReason !== undefined)('config shared by the cluster', { timeout: 20_000 }, () => {
  it("stores the first server's file config; a later server adopts the cluster's instead of its own", async () => {
    const first = await startServer(configNamed('甲'))
    expect(first.adopted).toEqual([])
    expect(first.sync.version()).toBe(1)
    const second = await startServer(configNamed('乙'))
    expect(second.adopted.map(nameOf)).toEqual(['甲'])
    // Where the cluster's version and the server's own file differ, it says so.
    expect(second.sync.disagreement()).toEqual({ version: 1, fields: ['character.name'] })
    expect(first.sync.disagreement()).toBeUndefined()
  })

  it('applies a change made on one server on the others, within a second, and not on the sender', async () => {
    const [a, b] = opened
    const c = await startServer(configNamed('丙'))
    const before = c.adopted.length
    await a!.sync.publish(configNamed('丁'))
    await vi.waitFor(() => expect(c.adopted.length > before && b!.adopted.length > 1).toBe(true), {
      timeout: 5000,
      interval: 50,
    })
    expect(nameOf(c.adopted.at(-1)!)).toBe('丁')
    expect(nameOf(b!.adopted.at(-1)!)).toBe('丁')
    expect(a!.adopted).toEqual([])
    expect(c.sync.version()).toBe(a!.sync.version())
  })

  it('catches up by its periodic check when the message was missed', async () => {
    const member = await startServer(configNamed('戊'), 200)
    const raw = new Redis(testRedisUrl)
    // A change stored by another server while this one was not subscribed: no message will come.
    const current = Number(await raw.hget(`${keyPrefix}config`, 'version'))
    const sealed = createConfigVersionSeal(sharedSecret).seal(current + 1, 'elsewhere', {
      character: { name: '己' },
    })
    await raw.hset(`${keyPrefix}config`, sealed)
    await raw.quit()
    await vi.waitFor(() => expect(nameOf(member.adopted.at(-1)!)).toBe('己'), {
      timeout: 5000,
      interval: 50,
    })
  })
})
