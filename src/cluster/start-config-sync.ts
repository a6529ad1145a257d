/**
 * Admin config changes shared by the servers of a cluster. The running config lives in one Redis
 * hash (`{prefix}config`: `version`, `body`, `from`); a change made on one server (admin API, or a
 * hand edit of that server's file picked up by its watch) is stored with the next version and the
 * version is published; every other server fetches and applies it on the message, or at the latest
 * at its next version check (once a second), which also covers a message lost while Redis was away.
 *
 * The file on disk is the bootstrap: the first server of a cluster stores its config; a server that
 * joins later adopts the cluster's. Values are stored as applied (`${ENV}` references resolved by the
 * server that made the change), so Redis holds the API keys too: protect it as the config file.
 */
import type { CharpipeConfig } from '../config/schema.js'
import type { Logger } from '../shared/logger.js'
import { toClusterStoreError } from './cluster-redis-error.js'
import type { ClusterRedis } from './connect-cluster-redis.js'

export interface StartConfigSyncOptions {
  redis: ClusterRedis
  /** The config this server started with (from its file). */
  initial: CharpipeConfig
  /** Applies a config another server stored (it validates it again). */
  adopt(config: CharpipeConfig): Promise<void>
  logger: Logger
  /** How often the stored version is compared with the applied one. @default 1000 */
  checkIntervalMs?: number
}

export interface ConfigSync {
  /** The version this server runs. */
  version(): number
  /** Stores a config applied here and tells the other servers; rejects with StoreUnavailableError. */
  publish(config: CharpipeConfig): Promise<void>
  close(): void
}

// KEYS: config hash. ARGV: body, from. Stores the config unless one is there; returns the version there.
const bootstrapScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'version', 1, 'body', ARGV[1], 'from', ARGV[2])
  return 0
end
return tonumber(redis.call('HGET', KEYS[1], 'version'))`

// KEYS: config hash. ARGV: body, from. Returns the new version.
const publishScript = `
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'body', ARGV[1], 'from', ARGV[2])
return version`

export async function startConfigSync(options: StartConfigSyncOptions): Promise<ConfigSync> {
  const { redis, logger } = options
  const key = redis.key('config')
  const channel = redis.key('config-changes')
  let applied = 0
  let queue: Promise<void> = Promise.resolve()
  let closed = false

  const fetchAndAdopt = async () => {
    const [version, body, from] = await redis.commands.hmget(key, 'version', 'body', 'from')
    const stored = Number(version)
    if (!body || !(stored > applied)) return
    applied = stored
    if (from === redis.serverId) return
    try {
      await options.adopt(JSON.parse(body) as CharpipeConfig)
      logger.info({ version: stored }, 'config changed on another server; applied from the next turn')
    } catch (error) {
      logger.error(
        { err: error, version: stored },
        'the config stored by another server could not be applied',
      )
    }
  }
  // One check at a time, in order; a failure (Redis away) waits for the next tick. While Redis is
  // away, one line when the checks start failing and one when they work again, not one a second.
  let failing = false
  const check = () => {
    queue = queue.then(fetchAndAdopt).then(
      () => {
        if (failing) logger.info('shared config reachable again')
        failing = false
      },
      (error: unknown) => {
        if (!failing) {
          logger.warn({ err: toClusterStoreError(error, 'reading the shared config') }, 'config check failed')
        }
        failing = true
      },
    )
    return queue
  }

  try {
    const found = Number(
      await redis.commands.eval(bootstrapScript, 1, key, JSON.stringify(options.initial), redis.serverId),
    )
    if (found === 0) {
      applied = 1
      logger.info('no shared config yet: this server stored its own')
    } else {
      await fetchAndAdopt()
    }
  } catch (error) {
    throw toClusterStoreError(error, 'reading the shared config')
  }
  await redis.subscribe(channel, () => void check())
  const timer = setInterval(() => void check(), options.checkIntervalMs ?? 1000)
  timer.unref()

  return {
    version: () => applied,
    async publish(config) {
      if (closed) return
      try {
        const version = Number(
          await redis.commands.eval(publishScript, 1, key, JSON.stringify(config), redis.serverId),
        )
        applied = Math.max(applied, version)
        await redis.commands.publish(channel, String(version))
      } catch (error) {
        throw toClusterStoreError(error, 'sharing the config change')
      }
    },
    close() {
      closed = true
      clearInterval(timer)
    },
  }
}
