/**
 * `close()` while a turn streams (a server's shutdown): the turn ends as interrupted and is stored
 * as far as it was spoken before the stores close, even when the store writes over the network
 * (PostgreSQL). The write must not be cut off by the store it is writing to closing under it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { characterIdOf } from '../../src/config/character-id.js'
import { createCharpipe } from '../../src/engine/create-charpipe.js'
import { createHistoryStore } from '../../src/memory/history-store-factory.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl,
} from '../support/local-postgres.js'

const skipReason = await findPostgresSkipReason()
const schemaPrefix = createTestSchemaName('close_turn')

describe.skipIf(skipReason !== undefined)(
  'closing the engine while a turn streams',
  { timeout: 60_000 },
  () => {
    let model: MockModelServer
    beforeAll(async () => {
      // About five seconds of reply: the close lands well inside it.
      model = await startMockModelServer({
        script: {
          replies: [],
          default: { text: `第一句。${'慢慢说。'.repeat(60)}`, chunkSize: 4, delayMs: 20 },
        },
      })
    })
    afterAll(async () => {
      await model?.close()
      await dropSchemasUnder(schemaPrefix)
    })

    it('stores the running turn as interrupted before closing the PostgreSQL history', async () => {
      const schema = `${schemaPrefix}_a`
      const config = makeConfig({
        llm: { provider: 'custom', base_url: `${model.url}/v1`, max_retries: 0 },
        history: { store: 'postgres' },
        storage: { postgres_url: testPostgresUrl },
      })
      const charpipe = await createCharpipe(config, {
        parts: {
          createHistoryStore: (parsed, { logger }) =>
            createHistoryStore(parsed, { logger, postgresSchema: schema }),
        },
      })
      const events: CharpipeEvent[] = []
      let closing: Promise<void> | undefined
      for await (const event of charpipe.generate({ session: 'closing', text: '说很多话' })) {
        events.push(event)
        if (event.type === 'llm_sentence') closing ??= charpipe.close()
      }
      await closing
      expect(events.at(-1)).toMatchObject({ type: 'llm_done', interrupted: true })

      const reopened = await createHistoryStore(config, { postgresSchema: schema })
      try {
        const stored = await reopened.listMessages({
          character: characterIdOf(config.character),
          session: 'closing',
        })
        expect(stored.map((message) => message.role)).toEqual(['user', 'assistant'])
        expect(stored[0]).toMatchObject({ content: '说很多话' })
        expect(stored[1]).toMatchObject({ interrupted: true })
        expect(stored[1]!.content.startsWith('第一句。')).toBe(true)
        expect(stored[1]!.content.length).toBeLessThan(100)
      } finally {
        await reopened.close()
      }
    })
  },
)
