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

  describe('tool results with images', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo='
    const withImages: ChatMessage[] = [
      { role: 'user', content: 'screenshot both' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', name: 'shot', arguments: {} },
          { id: 'c2', name: 'shot', arguments: {} },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'c1',
        content: [
          { type: 'text', text: 'first [image 1: image/png]' },
          { type: 'image', url: png, mediaType: 'image/png' },
        ],
      },
      { role: 'tool', toolCallId: 'c2', content: 'no image here' },
    ]

    it('OpenAI: tool messages stay text, their images follow them in one user message', () => {
      const converted = convertToOpenAIMessages(withImages)
      expect(converted.slice(2)).toEqual([
        { role: 'tool', tool_call_id: 'c1', content: 'first [image 1: image/png]' },
        { role: 'tool', tool_call_id: 'c2', content: 'no image here' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Images from the tool results above:' },
            { type: 'image_url', image_url: { url: png } },
          ],
        },
      ])
    })

    it('Anthropic: the image goes inside its tool_result block', () => {
      const { messages } = convertToAnthropicMessages(withImages)
      expect(messages[2]!.content).toEqual([
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { type: 'text', text: 'first [image 1: image/png]' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
        { type: 'tool_result', tool_use_id: 'c2', content: 'no image here' },
      ])
    })
  })
})
