/**
 * `charpipe/memory`: the parts of history and long-term memory (stores that need no optional peer,
 * the store factories, remembering a turn, knowledge chunks, embeddings, ranking, deadlines). The
 * PostgreSQL and Redis stores have their own subpaths (`postgres.ts`, `redis.ts` beside this file).
 */
export { type AddStoreDeadlinesOptions, addStoreDeadlines } from './add-store-deadlines.js'
export * from './history/index.js'
export { type CreateHistoryStoreOptions, createHistoryStore } from './history-store-factory.js'
export * from './long-term/index.js'
export { type MemoryScopeInput, memoryScopeOf } from './memory-scope-of.js'
export { type CreateMemoryStoreOptions, createMemoryStore } from './memory-store-factory.js'
export * from './people/index.js'
export {
  createHistoryResetPolicy,
  type HistoryResetConfig,
  type HistoryResetPolicy,
  type HistoryResetState,
} from './reset-policy.js'
export { onStoreFailure, type StoreFailure } from './store-failures.js'
export type * from './types.js'
