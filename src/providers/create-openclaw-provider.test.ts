import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { createOpenClawProvider } from './create-openclaw-provider.js'
import { collectEvents } from './test-helpers.js'
import type { ChatRequest } from './types.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

function createProvider(overrides: Partial<ChatProviderSettings> = {}) {
  return createOpenClawProvider({
    name: 'openclaw',
    apiType: 'openclaw',
    baseUrl: server.url,
    model: 'openclaw',
    apiKey: '',
    openclaw: { sessionKey: 'main', agentId: '' },
    ...overrides,
  })
}

const conversation: ChatRequest = {
  messages: [
    { role: 'system', content: '你是小助手' },
    { role: 'user', content: '昨天的问题' },
    { role: 'assistant', content: '昨天的回答' },
    { role: 'user', content: '今天天气怎么样？[用户语气：愉快]' },
  ],
  temperature: 0.3,
  tools: [{ name: 'x', description: 'x', parameters: {} }],
}

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`

describe('OpenClaw provider', () => {
  it('sends exactly the current user message, with no token and no agent header by default', async () => {
    server.script({ text: '晴天！', chunkSize: 2 })
    const result = await collectEvents(createProvider().streamChat(conversation))
    expect(result.text).toBe('晴天！')
    const sent = server.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.rawBody).toBe(
      '{"model":"openclaw","stream":true,"messages":[{"role":"user","content":"今天天气怎么样？[用户语气：愉快]"}]}',
    )
    expect(sent.headers.accept).toBe('text/event-stream')
    expect(sent.headers['content-type']).toBe('application/json')
    expect(sent.headers['x-openclaw-session-key']).toBe('main')
    expect(sent.headers).not.toHaveProperty('authorization')
    expect(sent.headers).not.toHaveProperty('x-openclaw-agent-id')
  })

  it('sends the bearer token and agent id when they are set', async () => {
    server.script({ text: 'ok' })
    const provider = createProvider({
      apiKey: 'gateway-token-1',
      openclaw: { sessionKey: 'room-7', agentId: 'helper' },
    })
    await collectEvents(provider.streamChat(conversation))
    const sent = server.requests[0]!
    expect(sent.headers.authorization).toBe('Bearer gateway-token-1')
    expect(sent.headers['x-openclaw-session-key']).toBe('room-7')
    expect(sent.headers['x-openclaw-agent-id']).toBe('helper')
  })

  it('accepts a stream that ends with [DONE] and no finish_reason', async () => {
    server.script({
      rawChunks: [
        chunk({ role: 'assistant', content: '你好' }),
        chunk({ content: '呀。' }),
        'data: [DONE]\n\n',
      ],
    })
    const result = await collectEvents(createProvider().streamChat(conversation))
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('你好呀。')
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
  })

  it('turns an in-band "Error: …" chunk with HTTP 200 into upstream_stream, never text', async () => {
    server.script({
      rawChunks: [
        chunk({ role: 'assistant', content: 'Err' }),
        chunk({ content: 'or: No API key found for provider "anthropic"' }),
        chunk({}, 'stop'),
        'data: [DONE]\n\n',
      ],
    })
    const result = await collectEvents(createProvider().streamChat(conversation))
    expect(result.events.filter((event) => event.type === 'text-delta')).toEqual([])
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('No API key found')
  })

  it('passes a reply that merely starts like "Err" through unchanged', async () => {
    server.script({
      rawChunks: [chunk({ content: 'Er' }), chunk({ content: 'hm, 好吧。' }), 'data: [DONE]\n\n'],
    })
    const result = await collectEvents(createProvider().streamChat(conversation))
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('Erhm, 好吧。')
  })

  it('maps a 404 (endpoint disabled in the gateway) to upstream_http', async () => {
    server.script({ status: 404, body: 'Not Found' })
    const result = await collectEvents(createProvider().streamChat(conversation))
    expect(result.error?.code).toBe('upstream_http')
    expect(result.error?.status).toBe(404)
  })

  it('reads only the start of an error page that never ends, for its excerpt', async () => {
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1
        controller.enqueue(new TextEncoder().encode('gateway busy '.repeat(1000)))
      },
    })
    const provider = createProvider({ fetch: async () => new Response(endless, { status: 502 }) })
    const result = await collectEvents(provider.streamChat(conversation))
    expect(result.error?.code).toBe('upstream_http')
    expect(result.error?.status).toBe(502)
    expect(sent).toBeLessThan(20)
  })
})
