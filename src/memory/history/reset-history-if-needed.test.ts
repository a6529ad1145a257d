import { describe, expect, it } from 'vitest'
import { buildTurn } from '../../testing/history-store-contract.js'
import { createHistoryResetPolicy } from '../reset-policy.js'
import { createInMemoryHistoryStore } from './in-memory-history-store.js'
import { resetHistoryIfNeeded } from './reset-history-if-needed.js'

const scope = { character: '小助手', session: 's1' }

describe('resetHistoryIfNeeded', () => {
  it('resets every max_turns turns with policy turns, keeping the messages listed', async () => {
    const store = createInMemoryHistoryStore()
    const policy = createHistoryResetPolicy({ policy: 'turns', max_turns: 3, max_tokens: 0 })
    const resets: number[] = []
    for (let index = 1; index <= 7; index++) {
      await store.appendTurn(scope, buildTurn(index))
      if (await resetHistoryIfNeeded({ store, scope, policy })) resets.push(index)
    }
    expect(resets).toEqual([3, 6])
    expect((await store.loadRecent(scope, 10)).map((message) => message.content)).toEqual([
      '问题 7',
      '回答 7',
    ])
    expect(await store.listMessages(scope)).toHaveLength(14)
  })

  it('resets once the context holds max_tokens with policy tokens', async () => {
    const store = createInMemoryHistoryStore()
    const policy = createHistoryResetPolicy(
      { policy: 'tokens', max_turns: 0, max_tokens: 40 },
      (text) => text.length,
    )
    const resets: number[] = []
    for (let index = 1; index <= 6; index++) {
      // Each turn: two messages of 4 characters plus 4 tokens of overhead each, 16 tokens.
      await store.appendTurn(scope, buildTurn(index))
      if (await resetHistoryIfNeeded({ store, scope, policy })) resets.push(index)
    }
    expect(resets).toEqual([3, 6])
  })

  it('does nothing with policy none', async () => {
    const store = createInMemoryHistoryStore()
    await store.appendTurn(scope, buildTurn(1))
    const policy = createHistoryResetPolicy({ policy: 'none', max_turns: 1, max_tokens: 1 })
    expect(await resetHistoryIfNeeded({ store, scope, policy })).toBe(false)
    expect(await store.countTurns(scope)).toBe(1)
  })
})
