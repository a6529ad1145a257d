import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MemoryRecord, MemoryStore } from '../types.js'
import { createSqliteMemoryStore } from './create-sqlite-memory-store.js'
import {
  type ExtractedFactDecision,
  type FactExtractor,
  maxRememberedCharacters,
  rememberTurn,
} from './remember-turn.js'

/** Runs scripted decisions and records what it was shown. */
function createScriptedExtractor(
  script: (existing: Pick<MemoryRecord, 'id' | 'text'>[]) => ExtractedFactDecision[],
): FactExtractor & { calls: { turnText: string; existing: Pick<MemoryRecord, 'id' | 'text'>[] }[] } {
  const calls: { turnText: string; existing: Pick<MemoryRecord, 'id' | 'text'>[] }[] = []
  return {
    calls,
    async extract(turnText, existing) {
      calls.push({ turnText, existing })
      return script(existing)
    },
  }
}

const speakerNames = { user: '用户', assistant: '小助手' }
let store: MemoryStore

beforeEach(() => {
  store = createSqliteMemoryStore({ path: ':memory:', now: () => 1_000 })
})
afterEach(async () => {
  await store.close()
})

describe('rememberTurn', () => {
  it('stores the raw turn with speaker names, time and source turn', async () => {
    const result = await rememberTurn(store, {
      scope: 's1',
      user: '我养了一只猫',
      assistant: '好可爱！叫什么名字？',
      turn: 't-1',
      time: 500,
      speakerNames,
    })
    expect(result.added).toHaveLength(1)
    expect(await store.get(result.added[0]?.id ?? '')).toMatchObject({
      scope: 's1',
      text: '用户: 我养了一只猫\n小助手: 好可爱！叫什么名字？',
      time: 500,
      sourceTurn: 't-1',
    })
  })

  it('forgets the memories of the turn it replaces before the extractor sees what is known', async () => {
    const kept = await store.add({ scope: 's1', text: 'The user is called Robin', sourceTurn: 't-1' })
    const replaced = await store.add({ scope: 's1', text: 'The user drinks tea', sourceTurn: 't-2' })
    const elsewhere = await store.add({ scope: 's2', text: 'The user drinks tea', sourceTurn: 't-2' })
    const extractor = createScriptedExtractor(() => [{ event: 'add', text: 'The user drinks coffee' }])
    const result = await rememberTurn(store, {
      scope: 's1',
      user: 'What do I drink?',
      assistant: 'Coffee.',
      turn: 't-3',
      replaces: 't-2',
      speakerNames,
      extractor,
    })
    expect(result.deleted).toEqual([replaced.id])
    expect(extractor.calls[0]!.existing.map((memory) => memory.id)).not.toContain(replaced.id)
    const texts = (await store.list({ scope: 's1' })).map((memory) => memory.text)
    expect(texts).toEqual(['The user drinks coffee', kept.text])
    expect(await store.get(elsewhere.id)).toBeDefined()
  })

  it('remembers each side of a huge turn up to maxRememberedCharacters', async () => {
    const huge = '这是一段很长的中文文本没有空格'.repeat(70_000)
    const result = await rememberTurn(store, {
      scope: 's1',
      user: huge,
      assistant: `violin ${huge}`,
      speakerNames,
    })
    const text = result.added[0]?.text ?? ''
    const [user, assistant] = text.split('\n')
    expect(user).toBe(`用户: ${huge.slice(0, maxRememberedCharacters)}…`)
    expect(assistant).toBe(`小助手: violin ${huge.slice(0, maxRememberedCharacters - 7)}…`)
    expect((await store.search('violin', { scope: 's1', k: 1 }))[0]?.id).toBe(result.added[0]?.id)
  }, 30_000)

  it('stores nothing for an empty turn', async () => {
    expect(await rememberTurn(store, { scope: 's1', user: '  ', speakerNames })).toEqual({
      added: [],
      updated: [],
      deleted: [],
    })
  })

  it('applies add, update, delete and none decisions from the extractor', async () => {
    const city = await store.add({ scope: 's1', text: 'User lives in Berlin' })
    const pet = await store.add({ scope: 's1', text: 'User has a dog named Rex' })
    const job = await store.add({ scope: 's1', text: 'User works as a nurse' })
    const extractor = createScriptedExtractor(() => [
      { event: 'update', id: city.id, text: 'User lives in Lisbon' },
      { event: 'delete', id: pet.id, text: '' },
      { event: 'none', id: job.id, text: 'User works as a nurse' },
      { event: 'add', text: 'User is learning Portuguese' },
    ])
    const result = await rememberTurn(store, {
      scope: 's1',
      user: 'I moved from Berlin to Lisbon, gave my dog Rex to my sister, and I am learning Portuguese. Still a nurse.',
      assistant: 'Wow, big changes!',
      turn: 't-9',
      speakerNames: { user: 'User', assistant: 'Bot' },
      extractor,
    })
    expect(extractor.calls[0]?.turnText).toContain('User: I moved from Berlin')
    expect(extractor.calls[0]?.existing.map((memory) => memory.id).sort()).toEqual(
      [city.id, pet.id, job.id].sort(),
    )
    expect(result.updated.map((memory) => memory.text)).toEqual(['User lives in Lisbon'])
    expect(result.deleted).toEqual([pet.id])
    expect(result.added.map((memory) => [memory.text, memory.sourceTurn, memory.metadata])).toEqual([
      ['User is learning Portuguese', 't-9', { extracted: true }],
    ])
    expect((await store.list({ scope: 's1' })).map((memory) => memory.text).sort()).toEqual([
      'User is learning Portuguese',
      'User lives in Lisbon',
      'User works as a nurse',
    ])
    expect((await store.history(city.id)).map((change) => change.event)).toEqual(['add', 'update'])
  })

  it('ignores updates and deletes of memories the extractor was not shown (other scopes, invented ids)', async () => {
    const foreign = await store.add({ scope: 'other', text: 'User lives in Berlin' })
    const extractor = createScriptedExtractor(() => [
      { event: 'delete', id: foreign.id, text: '' },
      { event: 'update', id: 'mem_invented', text: 'x' },
    ])
    const result = await rememberTurn(store, {
      scope: 's1',
      user: 'I live in Berlin',
      speakerNames,
      extractor,
    })
    expect(result).toEqual({ added: [], updated: [], deleted: [] })
    expect(await store.get(foreign.id)).toBeDefined()
  })
})
