import { describe, expect, it } from 'vitest'
import { createFakeMemoryStore } from '../../testing/create-fake-memory-store.js'
import type { MemoryHit, MemoryRetriever } from '../types.js'
import { findRecallScopes, searchScopes } from './find-recall-scopes.js'
import { linkPeople } from './people-links.js'

const hit = (id: string, score: number): MemoryHit => ({
  id,
  score,
  kind: 'memory',
  scope: 's',
  text: id,
  time: 0,
})

describe('findRecallScopes', () => {
  it("recalls from the conversation, the speaker and everyone linked to them, and only the conversation's without a person", async () => {
    const store = createFakeMemoryStore()
    await linkPeople({ store, character: 'nova', person: 'onebot:qq:42', others: ['bilibili:room:20'] })
    expect(
      await findRecallScopes({
        retriever: store,
        session: 'bilibili:room:1',
        character: 'nova',
        speaker: { id: '20' },
      }),
    ).toEqual(['nova:bilibili:room:1', '~person:nova:bilibili:room:20', '~person:nova:onebot:qq:42'])
    // Another character's links are not this one's.
    expect(
      await findRecallScopes({ retriever: store, session: 'bilibili:room:1', speaker: { id: '20' } }),
    ).toEqual(['bilibili%3Aroom%3A1', '~person::bilibili:room:20'])
    expect(
      await findRecallScopes({
        retriever: store,
        session: 'kitchen',
        character: 'nova',
        speaker: { id: 'a\u0000' },
      }),
    ).toEqual(['nova:kitchen'])
    // A retriever that only searches: the speaker's own scope, no links.
    const searchOnly: MemoryRetriever = { search: async () => [] }
    expect(
      await findRecallScopes({ retriever: searchOnly, session: 'kitchen', speaker: { id: 'ann' } }),
    ).toEqual(['kitchen', '~person::speaker:ann'])
  })
})

describe('searchScopes', () => {
  it('merges the scopes best first, a memory found twice once, at most k', async () => {
    const byScope: Record<string, MemoryHit[]> = {
      a: [hit('1', 0.9), hit('2', 0.2)],
      b: [hit('3', 0.5), hit('1', 0.9)],
      c: [hit('4', 0.1)],
    }
    const asked: string[] = []
    const retriever: MemoryRetriever = {
      search: async (_query, options) => {
        asked.push(options.scope)
        return byScope[options.scope] ?? []
      },
    }
    const merged = await searchScopes(retriever, 'q', ['a', 'b', 'c'], { k: 3 })
    expect(merged.map((found) => found.id)).toEqual(['1', '3', '2'])
    expect(asked.sort()).toEqual(['a', 'b', 'c'])
  })
})
