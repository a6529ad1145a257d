import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { createAnthropicProvider } from './create-anthropic-provider.js'
import { createResilientProvider } from './create-resilient-provider.js'
import { captureLogger, collectEvents, waitUntil } from './test-helpers.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

function createProvider(overrides: Partial<ChatProviderSettings> = {}) {
  const log = captureLogger()
  const provider = createAnthropicProvider({
    name: 'anthropic',
    apiType: 'anthropic',
    baseUrl: server.url,
    model: 'claude-sonnet-5-5',
    apiKey: 'sk-ant-test-key-0001',
    temperature: 0.8,
    maxTokens: 512,
    logger: log.logger,
    ...overrides,
  })
  return { provider, ...log }
}

describe('Anthropic provider', () => {
  it('with promptCache, marks the system prompt and the end of the history as cache breakpoints', async () => {
    server.script({ text: '好。' })
    const { provider } = createProvider({ promptCache: true, temperature: undefined, maxTokens: undefined })
    const result = await collectEvents(
      provider.streamChat({
        messages: [
          { role: 'system', content: '你是小助手' },
          { role: 'user', content: '问题' },
          { role: 'assistant', content: '回答' },
          { role: 'system', content: '【相关记忆】\n- 用户喜欢猫' },
          { role: 'user', content: '我喜欢什么？', source: 'input' },
        ],
      }),
    )
    expect(result.error).toBeUndefined()
    const body = server.requests[0]!.body as Record<string, unknown>
    expect(body.system).toEqual([{ type: 'text', text: '你是小助手', cache_control: { type: 'ephemeral' } }])
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '问题' }] },
      { role: 'assistant', content: [{ type: 'text', text: '回答', cache_control: { type: 'ephemeral' } }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: '【相关记忆】\n- 用户喜欢猫' },
          { type: 'text', text: '我喜欢什么？' },
        ],
      },
    ])
  })

  it('sends system as its own parameter, images as blocks, and tool calls as tool_use/tool_result', async () => {
    server.script({ text: '好的，我看到了。', chunkSize: 3 })
    const { provider } = createProvider()
    const result = await collectEvents(
      provider.streamChat({
        messages: [
          { role: 'system', content: '你是小助手' },
          {
            role: 'user',
            content: [
              { type: 'text', text: '这是什么？' },
              { type: 'image', url: 'data:image/png;base64,iVBOR' },
            ],
          },
          {
            role: 'assistant',
            content: '我查一下。',
            toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: { q: 'x' } }],
          },
          { role: 'tool', content: '查到了', toolCallId: 'toolu_1' },
          { role: 'user', content: 'https 图片', source: 'input' },
        ],
        tools: [{ name: 'lookup', description: 'Look up', parameters: { type: 'object' } }],
      }),
    )
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('好的，我看到了。')
    const sent = server.requests[0]!
    expect(sent.path).toBe('/v1/messages')
    // The SDK decides how the key travels (`x-api-key` or a bearer header, by SDK version).
    expect(sent.headers['x-api-key'] ?? sent.headers.authorization).toContain('sk-ant-test-key-0001')
    expect(sent.headers['anthropic-version']).toBeTruthy()
    expect(sent.body).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 512,
      stream: true,
      system: '你是小助手',
      temperature: 0.8,
      tools: [{ name: 'lookup', description: 'Look up', input_schema: { type: 'object' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '这是什么？' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: '我查一下。' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '查到了' },
            { type: 'text', text: 'https 图片' },
          ],
        },
      ],
    })
  })

  it('sends a forced tool choice as tool_choice any / tool, and none without tools', async () => {
    server.script([{ text: 'a' }, { text: 'b' }, { text: 'c' }])
    const { provider } = createProvider()
    const tools = [{ name: 'weather', description: 'w', parameters: { type: 'object' } }]
    const messages = [{ role: 'user' as const, content: 'hi' }]
    await collectEvents(provider.streamChat({ messages, tools, toolChoice: 'required' }))
    await collectEvents(provider.streamChat({ messages, tools, toolChoice: { name: 'weather' } }))
    await collectEvents(provider.streamChat({ messages, toolChoice: 'required' }))
    expect(server.requests.map((request) => (request.body as { tool_choice?: unknown }).tool_choice)).toEqual(
      [{ type: 'any' }, { type: 'tool', name: 'weather' }, undefined],
    )
  })

  it('streams thinking as reasoning and tool_use as a complete call', async () => {
    server.script({
      reasoning: '想一想',
      text: '查天气。',
      toolCalls: [{ id: 'toolu_9', name: 'weather', arguments: { city: '北京' } }],
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: '天气' }] }))
    expect(result.reasoning).toBe('想一想')
    expect(result.text).toBe('查天气。')
    expect(result.events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        id: 'toolu_9',
        name: 'weather',
        arguments: { city: '北京' },
        rawArguments: '{"city":"北京"}',
      },
    ])
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('maps a mid-stream overloaded error to upstream_stream, keeping the text already streamed', async () => {
    server.script({ text: 'abcdefgh', chunkSize: 2, delayMs: 20, streamError: { after: 4 } })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('overloaded_error')
    expect(result.error?.isRetryable).toBe(false)
    expect(result.text).toBe('abcd')
  })

  it('retries an overload that arrives before any text', async () => {
    server.script([{ text: 'x', streamError: { after: 1 } }, { text: '恢复了。' }])
    const { provider } = createProvider()
    const resilient = createResilientProvider({ primary: provider, sleep: async () => {} })
    const result = await collectEvents(resilient.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('恢复了。')
    expect(server.requests).toHaveLength(2)
  })

  it('maps HTTP errors to upstream_http', async () => {
    server.script({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error?.code).toBe('upstream_http')
    expect(result.error?.status).toBe(529)
    expect(result.error?.isRetryable).toBe(true)
  })

  it('reports a stream cut before message_stop as upstream_stream', async () => {
    server.script({ text: 'abcdefgh', chunkSize: 2, breakAfterChunks: 4 })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.text).toBe('abcd')
  })

  it('closes the connection when the caller aborts, and ends with aborted', async () => {
    server.script({ text: 'z'.repeat(100), chunkSize: 1, delayMs: 20 })
    const { provider } = createProvider()
    const controller = new AbortController()
    let count = 0
    let caught: unknown
    try {
      for await (const event of provider.streamChat(
        { messages: [{ role: 'user', content: 'hi' }] },
        { signal: controller.signal },
      )) {
        if (event.type === 'text-delta' && ++count === 2) controller.abort()
      }
    } catch (error) {
      caught = error
    }
    expect((caught as { code?: string }).code).toBe('aborted')
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
  })

  it("skips pings, comments and events without a name (a gateway's data: [DONE])", async () => {
    server.script({
      text: 'abcdef',
      chunkSize: 2,
      insert: [
        { after: 2, raw: 'event: ping\ndata: {"type": "ping"}\n\n' },
        { after: 3, raw: ': keep-alive\n\n' },
        { after: 4, raw: 'data: [DONE]\n\n' },
      ],
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('abcdef')
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('refuses a line that is no SSE field (a proxy answering 200 with HTML) instead of skipping it', async () => {
    server.script({
      text: 'abcdef',
      chunkSize: 2,
      insert: [{ after: 3, raw: '<html><body>login</body></html>\n\n' }],
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('malformed SSE line')
    expect(result.error?.message).not.toContain('login')
    expect(result.text).toBe('ab')
  })

  it('reports a data line that is not JSON as upstream_stream', async () => {
    server.script({
      text: 'abcdef',
      chunkSize: 2,
      insert: [{ after: 3, raw: 'event: content_block_delta\ndata: {oops\n\n' }],
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('not JSON')
    expect(result.text).toBe('ab')
  })

  it('stops reading at message_stop: a body kept open after it does not hang the turn', async () => {
    const events = [
      { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '你好' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ]
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const text = events
          .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
          .join('')
        controller.enqueue(new TextEncoder().encode(text))
        // Never closed: a gateway that keeps the connection open after the reply.
      },
      cancel() {
        cancelled = true
      },
    })
    const fetch = async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    const { provider } = createProvider({ fetch })
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.error).toBeUndefined()
    expect(result.events).toEqual([
      { type: 'text-delta', text: '你好' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 2 } },
      { type: 'finish', reason: 'length' },
    ])
    expect(cancelled).toBe(true)
  })

  it('fails a 2xx answer that is no event stream with upstream_stream', async () => {
    const fetch = async () =>
      new Response('{"type":"message","content":[]}', { headers: { 'content-type': 'application/json' } })
    const { provider } = createProvider({ fetch })
    const result = await collectEvents(provider.streamChat({ messages: [{ role: 'user', content: 'hi' }] }))
    expect(result.events).toEqual([])
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('without an event stream')
  })
})
