import { describe, expect, it } from 'vitest'
import { CharpipeError } from '../shared/errors.js'
import { createLogger } from '../shared/logger.js'
import { connectClusterRedis } from './connect-cluster-redis.js'

describe('connectClusterRedis', () => {
  it('names the missing ioredis package as a setup error, not an internal one', async () => {
    const attempt = connectClusterRedis({
      url: 'redis://127.0.0.1:6379',
      keyPrefix: 'charpipe-missing-peer-test',
      timeoutMs: 1000,
      logger: createLogger({ level: 'silent' }),
      // A package name that no install has: the import fails as it would without ioredis.
      importModule: (name) => import(`charpipe-test-not-installed-${name}`),
    })
    const error = await attempt.catch((caught: unknown) => caught)
    expect(CharpipeError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'invalid_config', packageName: 'ioredis' })
    expect((error as Error).message).toContain('install ioredis to use cluster.enabled (npm install ioredis)')
  })
})
