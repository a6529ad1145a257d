/**
 * The cluster's two Redis connections: one for commands, one subscribed to the cluster's channels
 * (a subscribed connection can run no other command). Both fail fast while Redis is away (no
 * offline queue, a timeout on every command) and reconnect in the background, so the cluster heals
 * when Redis is back; the subscriber re-subscribes by itself.
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import { loadOptionalPeer } from '../memory/history/load-optional-peer.js'
import { type Logger, scrubSecrets } from '../shared/logger.js'
import { toClusterStoreError } from './cluster-redis-error.js'

export interface ClusterRedis {
  readonly commands: Redis
  /** This process among the servers (messages it published come back to it and are skipped). */
  readonly serverId: string
  /** A key or channel under `cluster.key_prefix`; each part is escaped so two names never meet. */
  key(...parts: string[]): string
  subscribe(channel: string, listener: (message: string) => void): Promise<void>
  publish(channel: string, message: string): Promise<void>
  /** Resolves when Redis answers a PING; rejects with StoreUnavailableError. */
  ping(): Promise<void>
  close(): Promise<void>
}

export interface ConnectClusterRedisOptions {
  url: string
  keyPrefix: string
  /** Longest wait for one command. */
  timeoutMs: number
  logger: Logger
  /** Replaces the import of `ioredis` (tests of a missing package). */
  importModule?: (name: string) => Promise<unknown>
}

function createClient(ioredis: typeof import('ioredis'), options: ConnectClusterRedisOptions, role: string) {
  const client = new ioredis.Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: role === 'subscriber',
    maxRetriesPerRequest: 0,
    commandTimeout: role === 'subscriber' ? undefined : options.timeoutMs,
    connectTimeout: Math.max(options.timeoutMs, 1000),
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  })
  let lastLogged = 0
  client.on('error', (error: Error) => {
    // While Redis is down every reconnect attempt fails: one line every 10 s is enough.
    if (Date.now() - lastLogged < 10_000) return
    lastLogged = Date.now()
    options.logger.warn({ role, err: scrubSecrets(error.message) }, 'cluster redis error')
  })
  return client
}

export async function connectClusterRedis(options: ConnectClusterRedisOptions): Promise<ClusterRedis> {
  const ioredis = await loadOptionalPeer<typeof import('ioredis')>({
    packageName: 'ioredis',
    neededFor: 'cluster.enabled',
    ...(options.importModule ? { importModule: options.importModule } : {}),
  })
  const commands = createClient(ioredis, options, 'commands')
  const subscriber = createClient(ioredis, options, 'subscriber')
  try {
    await Promise.all([commands.connect(), subscriber.connect()])
  } catch (error) {
    commands.disconnect()
    subscriber.disconnect()
    throw toClusterStoreError(error, 'connecting')
  }
  const listeners = new Map<string, (message: string) => void>()
  subscriber.on('message', (channel: string, message: string) => {
    try {
      listeners.get(channel)?.(message)
    } catch (error) {
      options.logger.error({ err: error, channel }, 'a cluster message could not be handled')
    }
  })
  const escapeKeyPart = (part: string) => part.replace(/[%:]/g, (character) => encodeURIComponent(character))
  return {
    commands,
    serverId: randomUUID(),
    key: (...parts) => options.keyPrefix + parts.map(escapeKeyPart).join(':'),
    async subscribe(channel, listener) {
      listeners.set(channel, listener)
      await subscriber.subscribe(channel)
    },
    async publish(channel, message) {
      try {
        await commands.publish(channel, message)
      } catch (error) {
        throw toClusterStoreError(error, 'publishing')
      }
    },
    async ping() {
      try {
        await commands.ping()
      } catch (error) {
        throw toClusterStoreError(error, 'ping')
      }
    },
    async close() {
      listeners.clear()
      subscriber.disconnect()
      await commands.quit().catch(() => commands.disconnect())
    },
  }
}
