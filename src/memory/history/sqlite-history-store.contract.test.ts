import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { describeHistoryStoreContract } from '../../testing/history-store-contract.js'
import { createSqliteHistoryStore } from './sqlite-history-store.js'

const folder = mkdtempSync(join(tmpdir(), 'charpipe-history-'))
const path = join(folder, 'nested', 'history.db')
afterAll(() => rmSync(folder, { recursive: true, force: true }))

describeHistoryStoreContract({
  name: 'sqlite',
  createStore: () => createSqliteHistoryStore({ path }),
  reopenStore: () => createSqliteHistoryStore({ path }),
  validatesInput: true,
})
