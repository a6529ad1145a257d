export { HistoryStoreError } from './history-store-error.js'
export { createInMemoryHistoryStore } from './in-memory-history-store.js'
export { type ResetHistoryIfNeededOptions, resetHistoryIfNeeded } from './reset-history-if-needed.js'
export { createSqliteHistoryStore, type SqliteHistoryStoreOptions } from './sqlite-history-store.js'
