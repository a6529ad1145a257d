/**
 * For tests that need the local Redis (`REDIS_URL`): a key prefix of its own per run, and the
 * cleanup of every key under it. Under CI the tests never skip: a missing Redis fails them.
 */
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'

export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

export function createTestKeyPrefix(): string {
  return `charpipe-test-${randomUUID()}:`
}

/** Why the tests cannot run here (no Redis), or undefined; always undefined under CI. */
export async function findRedisSkipReason(): Promise<string | undefined> {
  if (process.env.CI === 'true') return undefined
  const client = new Redis(testRedisUrl, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.ping()
    return undefined
  } catch (error) {
    return `Redis not reachable at ${testRedisUrl} (${(error as Error).message})`
  } finally {
    client.disconnect()
  }
}

export async function deleteKeysUnder(keyPrefix: string): Promise<void> {
  const client = new Redis(testRedisUrl)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000)
      if (keys.length) await client.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    await client.quit()
  }
}

export interface TestRedis {
  /** Why the file's tests skip (no Redis), or undefined. */
  skipReason: string | undefined
  /** The file's own key prefix. */
  keyPrefix: string
  /** Deletes every key under the prefix (nothing when the tests skipped). */
  deleteKeys(): Promise<void>
}

/** What a test file on the local Redis starts with: whether to skip, and a key prefix of its own. */
export async function prepareTestRedis(): Promise<TestRedis> {
  const skipReason = await findRedisSkipReason()
  const keyPrefix = createTestKeyPrefix()
  return {
    skipReason,
    keyPrefix,
    deleteKeys: async () => {
      if (!skipReason) await deleteKeysUnder(keyPrefix)
    },
  }
}
