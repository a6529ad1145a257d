import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  ChatMessage as LangChainChatMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages'
import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '../../shared/messages.js'
import {
  convertChatResultToAIMessageChunk,
  convertFromLangChainMessages,
  convertToLangChainMessages,
} from './convert-langchain-messages.js'

const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

describe('LangChain messages → charpipe messages', () => {
  it('converts every role and content shape', () => {
    const converted = convertFromLangChainMessages([
      new SystemMessage('你是小助手。'),
      new HumanMessage({
        content: [
          { type: 'text', text: '看这两张图' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'image_url', image_url: `data:image/png;base64,${pixel}` },
          { type: 'image', url: 'https://example.com/b.jpg', mimeType: 'image/jpeg' },
          { type: 'image', data: pixel, mimeType: 'image/png' },
          { type: 'image', source_type: 'base64', data: pixel, mime_type: 'image/png' },
        ],
      }),
      new AIMessage({
        content: '我查一下。',
        tool_calls: [{ id: 'c1', name: 'weather', args: { city: '北京' } }],
      }),
      new ToolMessage({ content: '{"sky":"晴"}', tool_call_id: 'c1' }),
      new AIMessageChunk({ content: [{ type: 'text', text: '北京晴。' }] }),
      new LangChainChatMessage('再见', 'user'),
    ])
    expect(converted).toEqual<ChatMessage[]>([
      { role: 'system', content: '你是小助手。' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '看这两张图' },
          { type: 'image', url: 'https://example.com/a.png' },
          { type: 'image', url: `data:image/png;base64,${pixel}` },
          { type: 'image', url: 'https://example.com/b.jpg', mediaType: 'image/jpeg' },
          { type: 'image', url: `data:image/png;base64,${pixel}`, mediaType: 'image/png' },
          { type: 'image', url: `data:image/png;base64,${pixel}`, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: '我查一下。',
        toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: '北京' } }],
      },
      { role: 'tool', content: '{"sky":"晴"}', toolCallId: 'c1' },
      { role: 'assistant', content: '北京晴。' },
      { role: 'user', content: '再见' },
    ])
  })

  it('rewrites the tool exchange as text for a model without function calling', () => {
    const converted = convertFromLangChainMessages(
      [
        new HumanMessage('北京和上海？'),
        new AIMessage({
          content: '',
          tool_calls: [
            { id: 'a', name: 'weather', args: { city: '北京' } },
            { id: 'b', name: 'weather', args: { city: '上海' } },
          ],
        }),
        new ToolMessage({ content: '{"sky":"晴"}', tool_call_id: 'a' }),
        new ToolMessage({ content: 'rain', tool_call_id: 'b', name: 'weather' }),
        new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'clock', args: {} }] }),
        new ToolMessage({ content: '12:00', tool_call_id: 'c' }),
      ],
      { nativeTools: false },
    )
    expect(converted).toEqual<ChatMessage[]>([
      { role: 'user', content: '北京和上海？' },
      {
        role: 'assistant',
        content:
          '{"tool_calls":[{"name":"weather","arguments":{"city":"北京"}},{"name":"weather","arguments":{"city":"上海"}}]}',
      },
      { role: 'user', content: '[工具结果 weather] {"sky":"晴"}\n[工具结果 weather] rain' },
      { role: 'assistant', content: '{"tool_call":{"name":"clock","arguments":{}}}' },
      { role: 'user', content: '[工具结果 clock] 12:00' },
    ])
  })

  it('refuses what it cannot convert, naming where', () => {
    expect(() =>
      convertFromLangChainMessages([new HumanMessage({ content: [{ type: 'image_url', image_url: {} }] })]),
    ).toThrow('messages[0].content[0]: image_url has no url')
    expect(() =>
      convertFromLangChainMessages([new HumanMessage({ content: [{ type: 'image', data: pixel }] })]),
    ).toThrow(/needs its mimeType/)
    expect(() =>
      convertFromLangChainMessages([
        new HumanMessage('hi'),
        new HumanMessage({ content: [{ type: 'audio', data: 'x', mimeType: 'audio/wav' }] }),
      ]),
    ).toThrow('messages[1].content[0]: content blocks of type "audio" are not supported')
    expect(() =>
      convertFromLangChainMessages([
        new SystemMessage({ content: [{ type: 'image_url', image_url: 'https://x' }] }),
      ]),
    ).toThrow('messages[0]: only text is allowed in this message')
    expect(() =>
      convertFromLangChainMessages([
        new ToolMessage({
          content: [{ type: 'image_url', image_url: 'https://x/a.png' }],
          tool_call_id: 'a',
        }),
      ]),
    ).toThrow('messages[0]: only text is allowed in this message')
  })
})

describe('charpipe messages → LangChain messages', () => {
  it('converts every role back, images as image_url blocks, and round-trips', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: '你是小助手。' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '看图' },
          { type: 'image', url: `data:image/png;base64,${pixel}`, mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: '北京' } }],
      },
      { role: 'tool', content: '{"sky":"晴"}', toolCallId: 'c1' },
      { role: 'assistant', content: '北京晴。' },
    ]
    const langChain = convertToLangChainMessages(messages)
    expect(langChain.map((message) => message.type)).toEqual(['system', 'human', 'ai', 'tool', 'ai'])
    expect(langChain[1]!.content).toEqual([
      { type: 'text', text: '看图' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
    ])
    expect((langChain[2] as AIMessage).tool_calls).toEqual([
      { id: 'c1', name: 'weather', args: { city: '北京' }, type: 'tool_call' },
    ])
    expect((langChain[3] as ToolMessage).tool_call_id).toBe('c1')

    const back = convertFromLangChainMessages(langChain)
    expect(back[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '看图' },
        { type: 'image', url: `data:image/png;base64,${pixel}` },
      ],
    })
    expect(back.filter((message) => message.role !== 'user')).toEqual(
      messages.filter((message) => message.role !== 'user'),
    )
  })

  it('turns a collected answer into an AIMessage with tool calls, usage and reasoning', () => {
    const message = convertChatResultToAIMessageChunk(
      {
        text: '',
        reasoning: '先查天气',
        toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: '北京' } }],
        usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 6, reasoningTokens: 2 },
        finishReason: 'tool-calls',
      },
      'deepseek-chat',
    )
    expect(message.tool_calls).toEqual([
      { id: 'c1', name: 'weather', args: { city: '北京' }, type: 'tool_call' },
    ])
    expect(message.usage_metadata).toEqual({
      input_tokens: 10,
      output_tokens: 4,
      total_tokens: 14,
      input_token_details: { cache_read: 6 },
      output_token_details: { reasoning: 2 },
    })
    expect(message.additional_kwargs).toEqual({ reasoning_content: '先查天气' })
    expect(message.response_metadata).toEqual({ model_name: 'deepseek-chat', finish_reason: 'tool-calls' })
  })
})
