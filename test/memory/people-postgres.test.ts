/**
 * The people directory over the PostgreSQL stores: a person's memories found by their scope prefix,
 * links that survive reopening the store, and an erasure that replaces the person's words in the
 * PostgreSQL history.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresHistoryStore } from '../../src/memory/history/postgres-history-store.js'
import { createPostgresMemoryStore } from '../../src/memory/long-term/create-postgres-memory-store.js'
import { createPeopleDirectory } from '../../src/memory/people/create-people-directory.js'
import { selectTurnMemoryTarget } from '../../src/memory/people/select-turn-memory-target.js'
import {
  createTestSchemaName,
  dropSchemasUnder,
  findPostgresSkipReason,
  testPostgresUrl as url,
} from '../support/local-postgres.js'

const schema = createTestSchemaName('people')
const skipReason = await findPostgresSkipReason()
if (skipReason) console.warn(`postgres people tests skipped: ${skipReason}`)

afterAll(async () => {
  if (!skipReason) await dropSchemasUnder(schema)
})

describe.skipIf(skipReason !== undefined)('people over PostgreSQL', () => {
  it('lists, links across a reopen, and erases a person with their words in the history', async () => {
    const memoryStore = await createPostgresMemoryStore({ url, schema: `${schema}_memory` })
    const historyStore = await createPostgresHistoryStore({ url, schema: `${schema}_history` })
    const scope = { character: 'nova', session: 'onebot:qq:group:1' }
    for (const [index, [id, text]] of [
      ['42', 'I like tea'],
      ['7', 'I like coffee'],
    ].entries()) {
      const turn = `t${index}`
      await historyStore.appendTurn(scope, {
        turn,
        user: { role: 'user', content: text as string, createdAt: 1 },
        assistant: { role: 'assistant', content: 'ok', createdAt: 2 },
      })
      const target = selectTurnMemoryTarget({
        session: scope.session,
        character: 'nova',
        speaker: { id: id as string, name: `user ${id}` },
        perPerson: true,
        history: scope,
      })
      await memoryStore.add({
        scope: target.scope,
        text: text as string,
        sourceTurn: turn,
        metadata: { ...target.metadata },
      })
    }
    const people = createPeopleDirectory({ memoryStore, historyStore, character: 'nova' })
    await people.link('onebot:qq:42', ['bilibili:room:20'])
    await memoryStore.close()

    const reopened = await createPostgresMemoryStore({ url, schema: `${schema}_memory` })
    const again = createPeopleDirectory({ memoryStore: reopened, historyStore, character: 'nova' })
    const listed = new Map((await again.list()).map((person) => [person.id, person]))
    expect(listed.get('onebot:qq:42')).toMatchObject({
      names: ['user 42'],
      links: ['bilibili:room:20'],
      memories: 1,
    })
    expect(listed.get('onebot:qq:7')).toMatchObject({ names: ['user 7'], links: [], memories: 1 })
    expect(await createPeopleDirectory({ memoryStore: reopened, character: undefined }).list()).toEqual([])

    expect(await again.erase('onebot:qq:42', { history: true })).toEqual({ removed: 2, links: 1 })
    const contents = (await historyStore.listMessages(scope)).map((message) => message.content)
    expect(contents).toEqual(['[erased]', 'ok', 'I like coffee', 'ok'])
    expect((await again.list()).map((person) => person.id)).toEqual(['onebot:qq:7'])
    await reopened.close()
    await historyStore.close()
  })
})
