import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Pool } from 'pg'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../shared/logger.js'
import { createPostgresKeywordIndex } from './create-postgres-keyword-index.js'
import type { MemoryTermIndex } from './memory-term-index.js'

setFlagsFromString('--expose_gc')
const collectGarbage = runInNewContext('gc') as () => void

/**
 * A pool answering what the index asks: no log entries since the last look, and every scope one
 * stored memory at version 1.
 */
function createFakePool(): Pool {
  const answer = async (query: string | { text: string }) => {
    const text = typeof query === 'string' ? query : query.text
    if (text.includes('memory_partitions')) return { rows: [{ version: '1' }] }
    if (text.includes('memory_items')) return { rows: [['1', 0, '', 'grey cat pixel', '']] }
    return { rows: [] }
  }
  const client = { query: answer, on() {}, off() {}, release() {} }
  return { query: answer, connect: async () => client } as unknown as Pool
}

/** Lets the current job end (a WeakRef keeps its target until then), then collects fully. */
async function collectAfterThisJob(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
  collectGarbage()
  collectGarbage()
}

describe('createPostgresKeywordIndex', () => {
  it('lets go of a partition dropped past its byte budget', async () => {
    const index = createPostgresKeywordIndex({
      pool: createFakePool(),
      tables: 'memory',
      logger: createLogger({ level: 'silent' }),
      // Room for the partitions of one search only.
      maxBytes: 1,
    })
    const first = new WeakRef((await index.findPartitions('first-session'))[0] as MemoryTermIndex)
    // Other sessions' searches drop the first session's partition.
    for (let session = 0; session < 5; session++) await index.findPartitions(`session-${session}`)
    expect(index.measureSize().partitions).toBe(2)
    await collectAfterThisJob()
    expect(first.deref()).toBeUndefined()
  })

  it('loads a dropped partition again when its scope is searched again', async () => {
    const index = createPostgresKeywordIndex({
      pool: createFakePool(),
      tables: 'memory',
      logger: createLogger({ level: 'silent' }),
      maxBytes: 1,
    })
    const [first] = await index.findPartitions('first-session')
    await index.findPartitions('other-session')
    const [again] = await index.findPartitions('first-session')
    expect(again).not.toBe(first)
    expect(again!.documentCount).toBe(1)
  })
})
