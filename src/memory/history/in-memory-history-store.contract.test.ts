import { describeHistoryStoreContract } from '../../testing/history-store-contract.js'
import { createInMemoryHistoryStore } from './in-memory-history-store.js'

describeHistoryStoreContract({ name: 'memory', createStore: () => createInMemoryHistoryStore() })
