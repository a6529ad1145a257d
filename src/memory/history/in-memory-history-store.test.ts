import { describe, expect, it } from 'vitest'
import { createInMemoryHistoryStore } from './in-memory-history-store.js'

const scope = { character: '小助手', session: 's1' }
const turn = (index: number) => ({
  turn: `t${index}`,
  user: { role: 'user' as const, content: `question ${index}`, createdAt: index },
  assistant: { role: 'assistant' as const, content: `answer ${index}`, emotion: '平静', createdAt: index },
})

describe('createInMemoryHistoryStore', () => {
  it('loads the last N turns oldest first', async () => {
    const store = createInMemoryHistoryStore()
    for (let index = 1; index <= 5; index++) await store.appendTurn(scope, turn(index))
    const recent = await store.loadRecent(scope, 2)
    expect(recent.map((message) => message.content)).toEqual([
      'question 4',
      'answer 4',
      'question 5',
      'answer 5',
    ])
    expect(await store.countTurns(scope)).toBe(5)
  })

  it('keeps sessions apart and forgets a cleared one', async () => {
    const store = createInMemoryHistoryStore()
    await store.appendTurn(scope, turn(1))
    await store.appendTurn({ ...scope, session: 's2' }, turn(2))
    expect(await store.listSessions('小助手')).toEqual(['s1', 's2'])
    await store.clearSession(scope)
    expect(await store.loadRecent(scope, 10)).toEqual([])
    expect(await store.countTurns({ ...scope, session: 's2' })).toBe(1)
  })

  it('starts a fresh context on reset but keeps the messages listed', async () => {
    const store = createInMemoryHistoryStore()
    await store.appendTurn(scope, turn(1))
    await store.resetContext(scope)
    await store.appendTurn(scope, turn(2))
    expect((await store.loadRecent(scope, 10)).map((message) => message.content)).toEqual([
      'question 2',
      'answer 2',
    ])
    expect(await store.listMessages(scope)).toHaveLength(4)
    expect(await store.countTurns(scope)).toBe(1)
  })

  it('pages back with beforeId and limit', async () => {
    const store = createInMemoryHistoryStore()
    for (let index = 1; index <= 3; index++) await store.appendTurn(scope, turn(index))
    const all = await store.listMessages(scope)
    const page = await store.listMessages(scope, { beforeId: all[4]!.id, limit: 2 })
    expect(page.map((message) => message.content)).toEqual(['question 2', 'answer 2'])
  })
})
