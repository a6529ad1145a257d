import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import { estimateTokens } from '../shared/estimate-tokens.js'
import { createHistoryResetPolicy, messageOverheadTokens } from './reset-policy.js'
import type { StoredMessage } from './types.js'

const message = (content: string, role: StoredMessage['role'] = 'user'): StoredMessage => ({
  role,
  content,
  createdAt: 0,
})
const reset = (overrides: Partial<Parameters<typeof createHistoryResetPolicy>[0]>) => ({
  policy: 'none' as const,
  max_turns: 0,
  max_tokens: 0,
  ...overrides,
})

describe('createHistoryResetPolicy', () => {
  it('never resets with policy none', () => {
    const policy = createHistoryResetPolicy(reset({ max_turns: 1, max_tokens: 1 }))
    expect(policy.shouldReset({ turns: 10_000, messages: [message('很长'.repeat(10_000))] })).toBe(false)
  })

  it.each([
    [0, false],
    [2, false],
    [3, true],
    [7, true],
  ])('policy turns with max_turns 3: %i turns -> reset %s', (turns, expected) => {
    const policy = createHistoryResetPolicy(reset({ policy: 'turns', max_turns: 3 }))
    expect(policy.shouldReset({ turns, messages: [] })).toBe(expected)
  })

  it('policy tokens resets once the context holds max_tokens, counting the per-message overhead', () => {
    const countTokens = (text: string) => text.length
    const policy = createHistoryResetPolicy(reset({ policy: 'tokens', max_tokens: 30 }), countTokens)
    const below = [message('a'.repeat(10)), message('b'.repeat(11), 'assistant')]
    expect(policy.shouldReset({ turns: 1, messages: below })).toBe(false)
    const at = [message('a'.repeat(10)), message('b'.repeat(12), 'assistant')]
    expect(10 + 12 + 2 * messageOverheadTokens).toBe(30)
    expect(policy.shouldReset({ turns: 1, messages: at })).toBe(true)
    expect(policy.shouldReset({ turns: 0, messages: [] })).toBe(false)
  })

  it('policy tokens uses the given tokenizer', () => {
    const policy = createHistoryResetPolicy(
      reset({ policy: 'tokens', max_tokens: 50 }),
      (text) => cl100k.encode(text).length,
    )
    const messages = [message('The quick brown fox jumps over the lazy dog. '.repeat(5))]
    expect(policy.shouldReset({ turns: 1, messages })).toBe(true)
    expect(policy.shouldReset({ turns: 1, messages: [message('hello')] })).toBe(false)
  })

  it('policy tokens counts by default with the one estimate the context limiter uses', () => {
    const text = '人工智能角色需要记住用户说过的话。'
    const limit = estimateTokens(text) + messageOverheadTokens
    const policy = createHistoryResetPolicy(reset({ policy: 'tokens', max_tokens: limit }))
    expect(policy.shouldReset({ turns: 1, messages: [message(text)] })).toBe(true)
    const above = createHistoryResetPolicy(reset({ policy: 'tokens', max_tokens: limit + 1 }))
    expect(above.shouldReset({ turns: 1, messages: [message(text)] })).toBe(false)
  })

  it('rejects a policy without its limit, naming the field', () => {
    expect(() => createHistoryResetPolicy(reset({ policy: 'turns' }))).toThrow(/history\.reset\.max_turns/)
    expect(() => createHistoryResetPolicy(reset({ policy: 'tokens' }))).toThrow(/history\.reset\.max_tokens/)
    expect(() => createHistoryResetPolicy(reset({ policy: 'sometimes' as never }))).toThrow(
      /history\.reset\.policy/,
    )
  })
})
