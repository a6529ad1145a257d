import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { maxAnswerBytes } from './create-node-fetch.js'
import { createOpenAICompatibleProvider } from './create-openai-compatible-provider.js'
import { createResilientProvider } from './create-resilient-provider.js'
import { captureLogger, collectEvents, logLevels, waitUntil } from './test-helpers.js'
import type { ChatRequest } from './types.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const request: ChatRequest = { messages: [{ role: 'user', content: '你好' }] }

function createProvider(overrides: Partial<ChatProviderSettings> = {}) {
  const log = captureLogger()
  const provider = createOpenAICompatibleProvider({
    name: 'deepseek',
    apiType: 'openai',
    baseUrl: `${server.url}/v1`,
    model: 'deepseek-chat',
    apiKey: 'sk-test-key-123456',
    logger: log.logger,
    ...overrides,
  })
  return { provider, ...log }
}

describe('OpenAI-compatible provider', () => {
  it('sends a streaming request through the SDK and streams text, usage and finish', async () => {
    server.script({ text: '你好呀！今天过得怎么样？', chunkSize: 2 })
    const { provider } = createProvider({ temperature: 0.5, maxTokens: 99 })
    const result = await collectEvents(
      provider.streamChat({
        messages: [
          { role: 'system', content: '你是小助手' },
          {
            role: 'user',
            content: [
              { type: 'text', text: '看图' },
              { type: 'image', url: 'data:image/png;base64,AAAA' },
            ],
          },
        ],
        tools: [{ name: 'weather', description: 'Weather', parameters: { type: 'object', properties: {} } }],
      }),
    )
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('你好呀！今天过得怎么样？')
    expect(result.events.filter((event) => event.type === 'text-delta').length).toBe(6)
    expect(result.events.at(-2)).toEqual({ type: 'usage', usage: { inputTokens: 10, outputTokens: 12 } })
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'stop' })
    const sent = server.requests[0]!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.headers.authorization).toBe('Bearer sk-test-key-123456')
    expect(sent.body).toEqual({
      model: 'deepseek-chat',
      messages: [
        { role: 'system', content: '你是小助手' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '看图' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.5,
      max_tokens: 99,
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Weather',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
    })
  })

  it('keeps reasoning_content apart from text and assembles tool calls', async () => {
    server.script({
      reasoning: '用户想知道天气。',
      text: '我查一下。',
      toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: '上海' } }],
      chunkSize: 3,
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.reasoning).toBe('用户想知道天气。')
    expect(result.text).toBe('我查一下。')
    expect(result.events.filter((event) => event.type === 'tool-call')).toEqual([
      {
        type: 'tool-call',
        id: 'call_1',
        name: 'weather',
        arguments: { city: '上海' },
        rawArguments: '{"city":"上海"}',
      },
    ])
    expect(result.events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' })
  })

  it('turns inline <think> into reasoning even when the tags are split across chunks', async () => {
    server.script({ text: '<think>先想想</think>\n好的！', chunkSize: 2 })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.reasoning).toBe('先想想')
    expect(result.text).toBe('好的！')
  })

  it('ignores keep-alive comments and reads Ollama `reasoning` and a tool call sent whole', async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    server.script({
      rawChunks: [
        ': keep-alive\n\n',
        chunk({ role: 'assistant', reasoning: '想一下' }),
        ': keep-alive\n\n',
        chunk({
          tool_calls: [
            { index: 0, id: 'call_x', type: 'function', function: { name: 'add', arguments: '{"a":1}' } },
          ],
        }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error).toBeUndefined()
    expect(result.reasoning).toBe('想一下')
    expect(result.events.filter((event) => event.type === 'tool-call')).toMatchObject([
      { id: 'call_x', name: 'add', arguments: { a: 1 } },
    ])
  })

  it('fails with upstream_unreachable on a refused connection and logs ERROR with the URL', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const { provider, lines } = createProvider({ baseUrl: `http://127.0.0.1:${port}/v1` })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_unreachable')
    expect(result.error?.isRetryable).toBe(true)
    const line = lines.find((entry) => entry.level === logLevels.error)
    expect(line?.url).toBe(`http://127.0.0.1:${port}/v1/chat/completions`)
  })

  it('fails with upstream_stream naming the bound when an answer inflates past it (a gzip bomb)', async () => {
    // 65 MiB of spaces in an error body, about 64 KB gzipped: past the 64 MiB read whole.
    const bomb = gzipSync(`{"error":{"message":"${' '.repeat(maxAnswerBytes + 1024 * 1024)}"}}`)
    const upstream = createHttpServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(bomb)
    })
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
    try {
      const port = (upstream.address() as { port: number }).port
      const { provider } = createProvider({ baseUrl: `http://127.0.0.1:${port}/v1` })
      const result = await collectEvents(provider.streamChat(request))
      expect(result.error?.code).toBe('upstream_stream')
      expect(result.error?.message).toBe(
        `the upstream's answer passed ${maxAnswerBytes} bytes once decompressed: refused`,
      )
    } finally {
      upstream.closeAllConnections()
      await new Promise((resolve) => upstream.close(resolve))
    }
  })

  it.each([
    [401, false],
    [404, false],
    [500, true],
  ])(
    'maps HTTP %i to upstream_http (retryable: %s) with a scrubbed body excerpt',
    async (status, retryable) => {
      server.script({
        status,
        body: { error: { message: 'bad key sk-abcdefghijklmnop', type: 'invalid_request_error' } },
      })
      const { provider, lines } = createProvider()
      const result = await collectEvents(provider.streamChat(request))
      expect(result.events).toEqual([])
      expect(result.error?.code).toBe('upstream_http')
      expect(result.error?.status).toBe(status)
      expect(result.error?.isRetryable).toBe(retryable)
      expect(result.error?.message).toContain('bad key')
      expect(result.error?.message).not.toContain('sk-abcdefghijklmnop')
      const line = lines.find((entry) => entry.level === logLevels.error)
      expect(line).toMatchObject({ status })
      expect(JSON.stringify(line)).not.toContain('sk-abcdefghijklmnop')
    },
  )

  it('reads Retry-After from a 429', async () => {
    server.script({ status: 429, retryAfter: 7 })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_http')
    expect(result.error?.retryAfterSeconds).toBe(7)
    expect(result.error?.isRetryable).toBe(true)
  })

  it('aborts with upstream_timeout when no first chunk arrives in time, and logs a WARNING', async () => {
    server.script({ text: '太晚了', firstTokenDelayMs: 2000 })
    const { provider, lines } = createProvider({ timeoutMs: 150 })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_timeout')
    expect(result.text).toBe('')
    expect(lines.some((entry) => entry.level === logLevels.warn && /first chunk/.test(entry.msg))).toBe(true)
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
  })

  it('aborts with upstream_timeout when the stream stalls midway', async () => {
    server.script({ text: 'abcdefgh', chunkSize: 2, delayMs: 1500 })
    const { provider } = createProvider({ stallTimeoutMs: 150 })
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_timeout')
    // The role chunk arrived at once, then nothing: the stall timer, not the first-chunk one, fired.
    expect(result.error?.message).toContain('stalled')
  })

  it('fails with upstream_stream when the connection is cut midway', async () => {
    server.script({ text: 'abcdefgh', chunkSize: 2, breakAfterChunks: 3 })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('abcd')
    expect(result.error?.code).toBe('upstream_stream')
  })

  it('fails with upstream_stream when the body ends cleanly without [DONE] or finish_reason', async () => {
    server.script({ text: 'abcd', chunkSize: 2, omitDone: true, omitFinishReason: true })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.text).toBe('abcd')
    expect(result.error?.code).toBe('upstream_stream')
  })

  it('fails with upstream_stream on a malformed SSE line', async () => {
    server.script({ text: 'abcdef', chunkSize: 2, insert: [{ after: 2, raw: '<html>oops</html>\n\n' }] })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('malformed SSE line')
    expect(result.text).toBe('ab')
  })

  it('fails with upstream_stream on a data line that is not JSON', async () => {
    server.script({ text: 'abcdef', chunkSize: 2, insert: [{ after: 3, raw: 'data: {"choices": [\n\n' }] })
    const { provider } = createProvider()
    const result = await collectEvents(provider.streamChat(request))
    expect(result.error?.code).toBe('upstream_stream')
    expect(result.error?.message).toContain('not JSON')
    expect(result.text).toBe('abcd')
  })

  it('closes the upstream connection at once when the caller aborts', async () => {
    server.script({ text: 'x'.repeat(200), chunkSize: 1, delayMs: 20 })
    const { provider, lines } = createProvider()
    const controller = new AbortController()
    const events: string[] = []
    let caught: unknown
    try {
      for await (const event of provider.streamChat(request, { signal: controller.signal })) {
        if (event.type === 'text-delta') events.push(event.text)
        if (events.length === 3) controller.abort()
      }
    } catch (error) {
      caught = error
    }
    expect((caught as { code?: string }).code).toBe('aborted')
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
    expect(lines.some((entry) => entry.level >= logLevels.warn)).toBe(false)
  })

  it('closes the upstream connection when the consumer leaves the loop early', async () => {
    server.script({ text: 'y'.repeat(200), chunkSize: 1, delayMs: 20 })
    const { provider } = createProvider()
    for await (const event of provider.streamChat(request)) {
      if (event.type === 'text-delta') break
    }
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
  })
})

describe('OpenAI-compatible provider behind the retry loop', () => {
  const noWait = async () => {}

  it('retries a 500 and then streams the reply once', async () => {
    server.script([{ status: 500 }, { text: '第二次成功了。' }])
    const { provider } = createProvider()
    const resilient = createResilientProvider({ primary: provider, sleep: noWait })
    const result = await collectEvents(resilient.streamChat(request))
    expect(result.error).toBeUndefined()
    expect(result.text).toBe('第二次成功了。')
    expect(server.requests).toHaveLength(2)
  })

  it('honours Retry-After from a 429', async () => {
    server.script([{ status: 429, retryAfter: 2 }, { text: 'ok' }])
    const delays: number[] = []
    const { provider } = createProvider()
    const resilient = createResilientProvider({
      primary: provider,
      sleep: async (milliseconds) => {
        delays.push(milliseconds)
      },
    })
    const result = await collectEvents(resilient.streamChat(request))
    expect(result.text).toBe('ok')
    expect(delays).toEqual([2000])
  })

  it('does not retry once text has been streamed, so nothing is repeated', async () => {
    server.script({ text: 'abcdef', chunkSize: 2, delayMs: 30, breakAfterChunks: 2 })
    const { provider } = createProvider()
    const resilient = createResilientProvider({ primary: provider, sleep: noWait })
    const result = await collectEvents(resilient.streamChat(request))
    expect(result.text).toBe('a'.concat('b'))
    expect(result.error?.code).toBe('upstream_stream')
    expect(server.requests).toHaveLength(1)
  })

  it('falls back to the next provider after the primary fails', async () => {
    server.script([{ status: 401 }, { text: '备用模型回答。' }])
    const primary = createProvider().provider
    const fallback = createProvider({ name: 'moonshot', model: 'moonshot-v1-8k' }).provider
    const resilient = createResilientProvider({ primary, fallbacks: [fallback], sleep: noWait })
    const result = await collectEvents(resilient.streamChat(request))
    expect(result.text).toBe('备用模型回答。')
    expect(server.requests.map((sent) => (sent.body as { model: string }).model)).toEqual([
      'deepseek-chat',
      'moonshot-v1-8k',
    ])
  })
})
