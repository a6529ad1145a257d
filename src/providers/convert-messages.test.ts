import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '../shared/messages.js'
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.js'
import { convertToOpenAIMessages } from './convert-to-openai-messages.js'

describe('message conversion', () => {
  const conversation: ChatMessage[] = [
    { role: 'system', content: '人设' },
    {
      role: 'user',
      content: [
        { type: 'text', text: '读一下' },
        { type: 'file', assetRef: 'docs/report.pdf', mediaType: 'application/pdf' },
      ],
    },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] },
    { role: 'tool', content: '内容', toolCallId: 'c1' },
    { role: 'system', content: '深度注入', source: 'depth-injection' },
    { role: 'user', content: [{ type: 'image', url: 'https://example.com/a.png' }] },
  ]

  it('converts to OpenAI: text-only parts as a string, tool calls with JSON arguments', () => {
    expect(convertToOpenAIMessages(conversation)).toEqual([
      { role: 'system', content: '人设' },
      { role: 'user', content: '读一下[file: report.pdf (application/pdf)]' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '内容' },
      { role: 'system', content: '深度注入' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
    ])
  })

  it('converts to Anthropic: leading system to the parameter, later system text kept in place', () => {
    const result = convertToAnthropicMessages(conversation)
    expect(result.system).toBe('人设')
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user'])
    expect(result.messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: '内容' },
      { type: 'text', text: '深度注入' },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
    ])
  })

  it('names what is wrong with bad input', () => {
    const unresolved: ChatMessage[] = [{ role: 'user', content: [{ type: 'image', assetRef: 'cat.png' }] }]
    expect(() => convertToOpenAIMessages(unresolved)).toThrow(/message 0: image "cat.png" has no url/)
    expect(() => convertToAnthropicMessages(unresolved)).toThrow(/has no url/)
    expect(() => convertToOpenAIMessages([{ role: 'tool', content: 'x' }])).toThrow(/needs toolCallId/)
  })
})
