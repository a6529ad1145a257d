import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFakeMemoryStore } from '../../testing/create-fake-memory-store.js'
import { createInMemoryHistoryStore } from '../history/in-memory-history-store.js'
import { createSqliteMemoryStore } from '../long-term/create-sqlite-memory-store.js'
import type { HistoryStore, MemoryStore } from '../types.js'
import { createPeopleDirectory } from './create-people-directory.js'
import { selectTurnMemoryTarget } from './select-turn-memory-target.js'

const folder = mkdtempSync(join(tmpdir(), 'people-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))
let databases = 0

const stores: { name: string; open: (path?: string) => MemoryStore }[] = [
  { name: 'in-memory', open: () => createFakeMemoryStore() },
  {
    name: 'sqlite',
    open: (path = join(folder, `people-${++databases}.db`)) =>
      createSqliteMemoryStore({ path, now: () => 1_000 }),
  },
]

/** Remembers one turn of `speaker` in `session` as the engine does. */
async function rememberTurn(
  options: { store: MemoryStore; history: HistoryStore; perPerson: boolean },
  turn: { session: string; speaker?: { id: string; name?: string }; text: string; id: string },
) {
  const scope = { character: 'nova', session: turn.session }
  await options.history.appendTurn(scope, {
    turn: turn.id,
    user: { role: 'user', content: turn.text, createdAt: 1 },
    assistant: { role: 'assistant', content: 'ok', createdAt: 2 },
  })
  const target = selectTurnMemoryTarget({
    session: turn.session,
    ...(turn.speaker ? { speaker: turn.speaker } : {}),
    perPerson: options.perPerson,
    history: scope,
  })
  return options.store.add({
    scope: target.scope,
    text: turn.text,
    sourceTurn: turn.id,
    metadata: { ...target.metadata },
  })
}

describe.each(stores)('people directory over the $name store', ({ open }) => {
  it('lists people with names, links and counts; links join chains and unlinking keeps every fact', async () => {
    const store = open()
    const history = createInMemoryHistoryStore()
    const people = createPeopleDirectory({ memoryStore: store, historyStore: history, character: undefined })
    const context = { store, history, perPerson: true }
    await rememberTurn(context, {
      session: 'onebot:qq:group:1',
      speaker: { id: '42', name: 'Ming' },
      text: 'I like tea',
      id: 't1',
    })
    await rememberTurn(context, {
      session: 'bilibili:room:9',
      speaker: { id: '20', name: 'Viewer' },
      text: 'I have a dog',
      id: 't2',
    })
    await rememberTurn(context, { session: 'kitchen', text: 'nobody named', id: 't3' })

    expect(await people.link('onebot:qq:42', ['bilibili:room:20'])).toEqual([
      'onebot:qq:42',
      'bilibili:room:20',
    ])
    // A chain: the third id is joined to the first through the second.
    expect(await people.link('bilibili:room:20', ['speaker:ming', 'bilibili:room:20'])).toEqual([
      'bilibili:room:20',
      'onebot:qq:42',
      'speaker:ming',
    ])
    expect(await people.links('speaker:ming')).toEqual(['bilibili:room:20', 'onebot:qq:42'])
    const listed = new Map((await people.list()).map((person) => [person.id, person]))
    expect([...listed.keys()].sort()).toEqual([
      'bilibili:room:20',
      'onebot:qq:42',
      'session:kitchen',
      'speaker:ming',
    ])
    expect(listed.get('onebot:qq:42')).toMatchObject({ names: ['Ming'], memories: 1 })
    expect(listed.get('speaker:ming')).toMatchObject({ names: [], memories: 0, lastSeen: undefined })

    expect(await people.unlink('onebot:qq:42', 'bilibili:room:20')).toBe(true)
    expect(await people.unlink('onebot:qq:42', 'bilibili:room:20')).toBe(false)
    expect(await people.links('onebot:qq:42')).toEqual([])
    expect(await people.links('bilibili:room:20')).toEqual(['speaker:ming'])
    expect((await people.memories('onebot:qq:42'))?.map((memory) => memory.text)).toEqual(['I like tea'])
    expect((await people.memories('bilibili:room:20'))?.map((memory) => memory.text)).toEqual([
      'I have a dog',
    ])
    expect(await people.memories('speaker:stranger')).toBeUndefined()
    await expect(people.memories('stranger')).rejects.toThrow(/person: the person id must start/)
    await store.close()
  })

  it('erases a person everywhere: own memories, lines kept in conversations, links, and with history their words', async () => {
    const store = open()
    const history = createInMemoryHistoryStore()
    const people = createPeopleDirectory({ memoryStore: store, historyStore: history, character: undefined })
    await rememberTurn(
      { store, history, perPerson: false },
      {
        session: 'onebot:qq:group:1',
        speaker: { id: '42' },
        text: 'my secret is 1234',
        id: 't1',
      },
    )
    await rememberTurn(
      { store, history, perPerson: true },
      { session: 'onebot:qq:group:1', speaker: { id: '42' }, text: 'I like tea', id: 't2' },
    )
    await rememberTurn(
      { store, history, perPerson: true },
      { session: 'onebot:qq:group:1', speaker: { id: '7' }, text: 'I am 7', id: 't3' },
    )
    await people.link('onebot:qq:42', ['bilibili:room:20'])

    // Memories, two words replaced in the history.
    expect(await people.erase('onebot:qq:42', { history: true })).toEqual({ removed: 4, links: 1 })
    const contents = (await history.listMessages({ character: 'nova', session: 'onebot:qq:group:1' })).map(
      (message) => message.content,
    )
    expect(contents).toEqual(['[erased]', 'ok', '[erased]', 'ok', 'I am 7', 'ok'])
    expect((await store.list({})).map((memory) => memory.text)).toEqual(['I am 7'])
    expect(await people.links('bilibili:room:20')).toEqual([])
    expect(await people.erase('onebot:qq:42', { history: true })).toBeUndefined()
    await store.close()
  })

  it("reaches a memory only through its person, and keeps one character's people from another's", async () => {
    const store = open()
    const people = createPeopleDirectory({ memoryStore: store, character: undefined })
    const other = createPeopleDirectory({ memoryStore: store, character: 'nova' })
    const history = createInMemoryHistoryStore()
    const memory = await rememberTurn(
      { store, history, perPerson: true },
      { session: 'room', speaker: { id: 'a' }, text: 'likes tea', id: 't1' },
    )
    expect(await people.updateMemory('speaker:b', memory.id, 'changed')).toBeUndefined()
    expect(await people.deleteMemory('speaker:b', memory.id)).toBe(false)
    expect(await other.memories('speaker:a')).toBeUndefined()
    expect(await other.list()).toEqual([])
    expect((await people.updateMemory('speaker:a', memory.id, 'likes coffee'))?.text).toBe('likes coffee')
    expect(await people.deleteMemory('speaker:a', memory.id)).toBe(true)
    await store.close()
  })
})

describe('people links on SQLite', () => {
  it('survive closing and opening the store again', async () => {
    const path = join(folder, 'links-kept.db')
    const first = createSqliteMemoryStore({ path })
    await createPeopleDirectory({ memoryStore: first, character: 'nova' }).link('onebot:qq:1', [
      'twitch:tv:one',
    ])
    await first.close()
    const second = createSqliteMemoryStore({ path })
    expect(
      await createPeopleDirectory({ memoryStore: second, character: 'nova' }).links('twitch:tv:one'),
    ).toEqual(['onebot:qq:1'])
    await second.close()
  })
})
