/**
 * `charpipe/memory/redis`: history in Redis. `ioredis` is an optional peer, loaded when the store
 * opens; config users get the same through `history.store: redis`.
 */
export { createRedisHistoryStore, type RedisHistoryStoreOptions } from './history/redis-history-store.js'
