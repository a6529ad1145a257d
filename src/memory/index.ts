export type * from './types.js'
export { createInMemoryHistoryStore } from './history/in-memory-history-store.js'
