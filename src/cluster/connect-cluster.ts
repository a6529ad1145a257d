/**
 * One server's membership of a cluster (`cluster.enabled`): the Redis connections, the turn lock and
 * the counters the server reports. Built once at start from the config it started with; changing
 * `cluster` or `storage.redis_url` takes a restart.
 */
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import { type ClusterRedis, connectClusterRedis } from './connect-cluster-redis.js'
import { createRedisTurnCoordinator } from './create-redis-turn-coordinator.js'
import type { TurnCoordinator } from './turn-coordinator.js'

export interface ClusterStats {
  /** Turns that waited for another turn's lock (on this or another server). */
  lockWaits: number
  /** Interrupts from another server that stopped a turn running here. */
  remoteInterrupts: number
}

export interface Cluster {
  readonly redis: ClusterRedis
  readonly coordinator: TurnCoordinator
  stats(): ClusterStats
  /** Resolves when Redis answers; rejects with StoreUnavailableError. */
  check(): Promise<void>
  close(): Promise<void>
}

export async function connectCluster(config: CharpipeConfig, logger: Logger): Promise<Cluster> {
  const url = config.storage.redis_url
  if (!url) {
    throw new InvalidConfigError(
      [
        {
          path: 'storage.redis_url',
          message: 'cluster.enabled needs storage.redis_url (the Redis the servers share)',
        },
      ],
      { summary: 'cluster.enabled needs storage.redis_url' },
    )
  }
  const redis = await connectClusterRedis({
    url,
    keyPrefix: config.cluster.key_prefix,
    timeoutMs: config.storage.timeout_ms,
    logger,
  })
  const stats: ClusterStats = { lockWaits: 0, remoteInterrupts: 0 }
  const coordinator = createRedisTurnCoordinator({
    redis,
    commandTimeoutMs: config.storage.timeout_ms,
    leaseMs: config.cluster.lease_ms,
    lockWaitMs: config.cluster.lock_wait_ms,
    logger,
    onLockWait: () => stats.lockWaits++,
    onRemoteInterrupt: () => stats.remoteInterrupts++,
  })
  return {
    redis,
    coordinator,
    stats: () => ({ ...stats }),
    check: () => redis.ping(),
    close: () => redis.close(),
  }
}
