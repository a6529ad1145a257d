import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '../../shared/messages.js'
import { formatForAnthropic } from './format-for-anthropic.js'

const messageArbitrary = fc.record({
  role: fc.constantFrom<ChatMessage['role']>('system', 'user', 'assistant'),
  content: fc.oneof(fc.constantFrom('', '  '), fc.string({ minLength: 1, maxLength: 8 })),
})

function isValidAnthropicSequence(messages: ChatMessage[]): boolean {
  const conversation = messages[0]?.role === 'system' ? messages.slice(1) : messages
  if (conversation.some((message) => message.role === 'system')) return false
  if (conversation.length > 0 && conversation[0]!.role !== 'user') return false
  return conversation.every((message, index) => index === 0 || message.role !== conversation[index - 1]!.role)
}

describe('anthropic-format', () => {
  it('always yields one leading system prompt, then user first and alternating, without empty text', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 30 }), (messages) => {
        const result = formatForAnthropic(messages)
        expect(isValidAnthropicSequence(result)).toBe(true)
        for (const message of result)
          expect(typeof message.content === 'string' && message.content.trim()).toBeTruthy()
      }),
      { numRuns: 500 },
    )
  })

  it('keeps every non-empty text, in order', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 20 }), (messages) => {
        const texts = messages.map((message) => message.content as string).filter((text) => text.trim())
        const joined = formatForAnthropic(messages)
          .map((message) => message.content as string)
          .join('\n\n')
        let position = 0
        for (const text of texts) {
          const found = joined.indexOf(text, position)
          expect(found).toBeGreaterThanOrEqual(0)
          position = found + text.length
        }
      }),
    )
  })

  it('puts a short user message before a leading assistant message (injected dialogue that starts with the character)', () => {
    const result = formatForAnthropic([
      { role: 'system', content: '人设', source: 'system' },
      { role: 'assistant', content: '欢迎回来！', source: 'injected' },
      { role: 'user', content: '你好', source: 'input' },
    ])
    expect(result.map((message) => [message.role, message.content])).toEqual([
      ['system', '人设'],
      ['user', '（对话开始）'],
      ['assistant', '欢迎回来！'],
      ['user', '你好'],
    ])
  })

  it('joins two user messages and keeps the input tag on the merged one', () => {
    const result = formatForAnthropic([
      { role: 'user', content: '上一轮没有回复', source: 'history' },
      { role: 'user', content: '在吗', source: 'input' },
    ])
    expect(result).toEqual([{ role: 'user', content: '上一轮没有回复\n\n在吗', source: 'input' }])
  })
})
