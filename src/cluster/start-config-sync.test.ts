import { Redis } from 'ioredis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { prepareTestRedis, testRedisUrl } from '../../test/support/local-redis.js'
import { type CharpipeConfig, configSchema } from '../config/schema.js'
import { createLogger } from '../shared/logger.js'
import { type ClusterRedis, connectClusterRedis } from './connect-cluster-redis.js'
import { type ConfigSync, startConfigSync } from './start-config-sync.js'

const { skipReason, keyPrefix, deleteKeys } = await prepareTestRedis()
const logger = createLogger({ level: 'silent' })
const opened: { redis: ClusterRedis; sync: ConfigSync; adopted: CharpipeConfig[] }[] = []

const configNamed = (name: string) => configSchema.parse({ character: { name } })

async function startServer(initial: CharpipeConfig, checkIntervalMs = 1000) {
  const redis = await connectClusterRedis({ url: testRedisUrl, keyPrefix, timeoutMs: 1000, logger })
  const adopted: CharpipeConfig[] = []
  const sync = await startConfigSync({
    redis,
    initial,
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
    expect(second.adopted.map((config) => config.character.name)).toEqual(['甲'])
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
    expect(c.adopted.at(-1)!.character.name).toBe('丁')
    expect(b!.adopted.at(-1)!.character.name).toBe('丁')
    expect(a!.adopted).toEqual([])
    expect(c.sync.version()).toBe(a!.sync.version())
  })

  it('catches up by its periodic check when the message was missed', async () => {
    const member = await startServer(configNamed('戊'), 200)
    const raw = new Redis(testRedisUrl)
    // A change stored while this server was not subscribed: no message will come.
    await raw.hincrby(`${keyPrefix}config`, 'version', 1)
    await raw.hset(`${keyPrefix}config`, 'body', JSON.stringify(configNamed('己')), 'from', 'elsewhere')
    await raw.quit()
    await vi.waitFor(() => expect(member.adopted.at(-1)?.character.name).toBe('己'), {
      timeout: 5000,
      interval: 50,
    })
  })
})
