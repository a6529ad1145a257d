/**
 * `charpipe/memory/postgres`: history and long-term memory in PostgreSQL. `pg` is an optional peer,
 * loaded when the first store opens; config users get the same through `history.store: postgres`
 * and `memory.store: postgres`.
 */
export {
  createPostgresHistoryStore,
  type PostgresHistoryStoreOptions,
} from './history/postgres-history-store.js'
export {
  type CreatePostgresMemoryStoreOptions,
  createPostgresMemoryStore,
} from './long-term/create-postgres-memory-store.js'
