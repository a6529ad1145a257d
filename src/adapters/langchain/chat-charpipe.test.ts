import {
  AIMessage,
  type AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { waitUntil } from '../../providers/test-helpers.js'
import { type MockModelServer, startMockModelServer } from '../../testing/start-mock-model-server.js'
import { ChatCharpipe, type ChatCharpipeFields, type LlmConfigInput } from './chat-charpipe.js'

let server: MockModelServer
const models: ChatCharpipe[] = []
beforeAll(async () => {
  server = await startMockModelServer()
})
afterEach(() => {
  server.reset()
  for (const model of models.splice(0)) model.close()
})
afterAll(() => server.close())

function createModel(llm: LlmConfigInput = {}, fields: Omit<ChatCharpipeFields, 'llm'> = {}): ChatCharpipe {
  const model = new ChatCharpipe({
    llm: { provider: 'custom', base_url: `${server.url}/v1`, api_key: 'sk-test', max_retries: 0, ...llm },
    ...fields,
  })
  models.push(model)
  return model
}

interface WireBody {
  messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[]
  tools?: { function: { name: string; parameters: Record<string, unknown> } }[]
  temperature?: number
  max_tokens?: number
}
const bodyOf = (index: number) => server.requests[index]!.body as WireBody

const weather = tool(async ({ city }: { city: string }) => `${city}: 晴, 25°C`, {
  name: 'weather',
  description: '查询城市天气',
  schema: z.object({ city: z.string().describe('城市') }),
})

describe('ChatCharpipe: a LangChain chat model over charpipe providers', () => {
  it('invokes: sends the converted messages and settings, returns the text with usage metadata', async () => {
    server.script({ text: '你好，我在。', usage: { inputTokens: 12, outputTokens: 5 } })
    const model = createModel({ temperature: 0.3, max_tokens: 64 })
    const answer = await model.invoke([new SystemMessage('你是小助手。'), new HumanMessage('在吗？')])
    expect(answer.content).toBe('你好，我在。')
    expect(answer.tool_calls).toEqual([])
    expect(answer.usage_metadata).toEqual({ input_tokens: 12, output_tokens: 5, total_tokens: 17 })
    expect(answer.response_metadata).toMatchObject({ finish_reason: 'stop' })
    expect(bodyOf(0)).toMatchObject({
      messages: [
        { role: 'system', content: '你是小助手。' },
        { role: 'user', content: '在吗？' },
      ],
      temperature: 0.3,
      max_tokens: 64,
    })
  })

  it('streams token chunks as they come and reports each to handleLLMNewToken', async () => {
    server.script({ text: '一二三四五六七八九十', chunkSize: 2 })
    const model = createModel()
    const tokens: string[] = []
    const chunks: string[] = []
    let whole: AIMessageChunk | undefined
    const stream = await model.stream('数数', {
      callbacks: [{ handleLLMNewToken: (token: string) => void tokens.push(token) }],
    })
    for await (const chunk of stream) {
      if (typeof chunk.content === 'string' && chunk.content) chunks.push(chunk.content)
      whole = whole ? whole.concat(chunk) : chunk
    }
    expect(chunks.length).toBeGreaterThan(1)
    expect(chunks.join('')).toBe('一二三四五六七八九十')
    expect(tokens.join('')).toBe('一二三四五六七八九十')
    expect(whole?.usage_metadata?.output_tokens).toBeGreaterThan(0)
  })

  it('answers a batch, one request per input', async () => {
    server.script([{ text: '一' }, { text: '二' }])
    const answers = await createModel().batch(['a', 'b'], { maxConcurrency: 1 })
    expect(answers.map((answer) => answer.content)).toEqual(['一', '二'])
    expect(server.requests).toHaveLength(2)
  })

  it('binds zod and JSON-schema tools and returns native tool calls with their ids', async () => {
    server.script({
      toolCalls: [
        { id: 'call_w1', name: 'weather', arguments: { city: '北京' } },
        { id: 'call_t1', name: 'clock', arguments: {} },
      ],
    })
    const clock = { name: 'clock', description: '现在几点', schema: { type: 'object', properties: {} } }
    const answer = await createModel().bindTools([weather, clock]).invoke('北京天气和时间？')
    expect(answer.tool_calls).toEqual([
      { id: 'call_w1', name: 'weather', args: { city: '北京' }, type: 'tool_call' },
      { id: 'call_t1', name: 'clock', args: {}, type: 'tool_call' },
    ])
    const tools = bodyOf(0).tools!
    expect(tools.map((offered) => offered.function.name)).toEqual(['weather', 'clock'])
    expect(tools[0]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: '城市' } },
      required: ['city'],
    })
  })

  it('streams native tool calls that add up to tool_calls', async () => {
    server.script({ toolCalls: [{ id: 'call_s', name: 'weather', arguments: { city: '上海' } }] })
    let whole: AIMessageChunk | undefined
    for await (const chunk of await createModel().bindTools([weather]).stream('上海？')) {
      whole = whole ? whole.concat(chunk) : chunk
    }
    expect(whole?.tool_calls).toEqual([
      { id: 'call_s', name: 'weather', args: { city: '上海' }, type: 'tool_call' },
    ])
  })

  it('sends tool results back as tool messages answering the call ids', async () => {
    server.script({ text: '北京晴。' })
    await createModel()
      .bindTools([weather])
      .invoke([
        new HumanMessage('北京？'),
        new AIMessage({ content: '', tool_calls: [{ id: 'c9', name: 'weather', args: { city: '北京' } }] }),
        new ToolMessage({ content: '北京: 晴', tool_call_id: 'c9' }),
      ])
    expect(bodyOf(0).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c9', type: 'function', function: { name: 'weather', arguments: '{"city":"北京"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c9', content: '北京: 晴' },
    ])
  })

  describe('function_calling: false (tools described in the prompt)', () => {
    it('offers no native tools, describes them in the system prompt and reads the call from the text', async () => {
      server.script({
        text: '{"tool_call": {"name": "weather", "arguments": {"city": "广州"}}}',
        chunkSize: 4,
      })
      const model = createModel({ function_calling: false })
      const answer = await model
        .bindTools([weather])
        .invoke([new SystemMessage('你是小助手。'), new HumanMessage('广州？')])
      expect(answer.content).toBe('')
      expect(answer.tool_calls).toHaveLength(1)
      expect(answer.tool_calls![0]).toMatchObject({
        name: 'weather',
        args: { city: '广州' },
        type: 'tool_call',
      })
      expect(answer.tool_calls![0]!.id).toMatch(/^call_[0-9a-f]{24}$/)
      const body = bodyOf(0)
      expect(body.tools).toBeUndefined()
      expect(body.messages[0]!.content).toContain('你是小助手。')
      expect(body.messages[0]!.content).toContain('- weather: 查询城市天气')
    })

    it('words the tool prompt and tool results in the language of the system prompt, or the one set', async () => {
      const exchange = (system: string) => [
        new SystemMessage(system),
        new HumanMessage('Shenzhen?'),
        new AIMessage({
          content: '',
          tool_calls: [{ id: 'x1', name: 'weather', args: { city: 'Shenzhen' } }],
        }),
        new ToolMessage({ content: '{"sky":"clear"}', tool_call_id: 'x1' }),
      ]
      const english = createModel({ function_calling: false }).bindTools([weather])
      server.script({ text: 'Clear skies.' })
      await english.invoke(exchange('You are a helpful travel guide.'))
      const englishMessages = bodyOf(0).messages
      expect(englishMessages[0]!.content).toContain('## Available tools')
      expect(englishMessages[0]!.content).not.toContain('## 可用工具')
      expect(englishMessages.at(-1)).toEqual({
        role: 'user',
        content: '[Tool result weather] {"sky":"clear"}',
      })

      server.script({ text: '深圳晴。' })
      await english.invoke(exchange('你是小助手。'))
      const chineseMessages = bodyOf(1).messages
      expect(chineseMessages[0]!.content).toContain('## 可用工具')
      expect(chineseMessages.at(-1)).toEqual({ role: 'user', content: '[工具结果 weather] {"sky":"clear"}' })

      server.script({ text: 'Clear skies.' })
      await createModel({ function_calling: false }, { language: 'en' })
        .bindTools([weather])
        .invoke(exchange('你是小助手。'))
      expect(bodyOf(2).messages[0]!.content).toContain('## Available tools')
    })

    it('streams ordinary text at once and a written call as tool_calls, never as text', async () => {
      const model = createModel({ function_calling: false }).bindTools([weather])
      server.script({ text: '今天不用查，天气很好。', chunkSize: 3 })
      const spoken: string[] = []
      for await (const chunk of await model.stream('你好'))
        if (chunk.content) spoken.push(String(chunk.content))
      expect(spoken.length).toBeGreaterThan(1)
      expect(spoken.join('')).toBe('今天不用查，天气很好。')

      server.script({
        text: '```json\n{"tool_call": {"name": "weather", "arguments": {"city": "深圳"}}}\n```',
        chunkSize: 5,
      })
      let whole: AIMessageChunk | undefined
      for await (const chunk of await model.stream('深圳？')) whole = whole ? whole.concat(chunk) : chunk
      expect(whole?.content).toBe('')
      expect(whole?.tool_calls).toMatchObject([{ name: 'weather', args: { city: '深圳' } }])
      expect(whole?.response_metadata).toMatchObject({ finish_reason: 'tool-calls' })
    })

    it('writes earlier calls and their results as text, the way the prompt asked for them', async () => {
      server.script({ text: '深圳晴。' })
      await createModel({ function_calling: false })
        .bindTools([weather])
        .invoke([
          new HumanMessage('深圳？'),
          new AIMessage({ content: '', tool_calls: [{ id: 'x1', name: 'weather', args: { city: '深圳' } }] }),
          new ToolMessage({ content: '{"sky":"晴"}', tool_call_id: 'x1' }),
        ])
      const messages = bodyOf(0).messages
      expect(messages.slice(2)).toEqual([
        { role: 'assistant', content: '{"tool_call":{"name":"weather","arguments":{"city":"深圳"}}}' },
        { role: 'user', content: '[工具结果 weather] {"sky":"晴"}' },
      ])
      expect(messages.some((message) => message.role === 'tool' || message.tool_calls)).toBe(false)
    })
  })

  it('gives structured output through a tool call, natively and through the prompt', async () => {
    const schema = z.object({ mood: z.string(), score: z.number() })
    server.script({ toolCalls: [{ name: 'extract', arguments: { mood: '开心', score: 0.9 } }] })
    expect(await createModel().withStructuredOutput(schema).invoke('今天真好')).toEqual({
      mood: '开心',
      score: 0.9,
    })

    server.script({ text: '{"tool_call": {"name": "extract", "arguments": {"mood": "难过", "score": 0.2}}}' })
    const fallback = createModel({ function_calling: false }).withStructuredOutput(schema)
    expect(await fallback.invoke('唉')).toEqual({ mood: '难过', score: 0.2 })
  })

  it('passes tool_choice on: required, a named tool, or no tools at all for none', async () => {
    const model = createModel()
    server.script([{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }])
    await model.bindTools([weather], { tool_choice: 'any' }).invoke('x')
    await model.bindTools([weather], { tool_choice: 'weather' }).invoke('x')
    await model.bindTools([weather]).invoke('x', { tool_choice: 'none' })
    await model.bindTools([weather]).invoke('x')
    const sent = server.requests.map(
      (request) => request.body as { tools?: unknown[]; tool_choice?: unknown },
    )
    expect(sent.map((body) => body.tool_choice)).toEqual([
      'required',
      { type: 'function', function: { name: 'weather' } },
      undefined,
      undefined,
    ])
    expect(sent.map((body) => body.tools?.length)).toEqual([1, 1, undefined, 1])
  })

  it('asks for the call in the prompt when a tool is forced without function calling', async () => {
    server.script({ text: '{"tool_call": {"name": "weather", "arguments": {"city": "西安"}}}' })
    const model = createModel({ function_calling: false }).bindTools([weather], { tool_choice: 'weather' })
    expect((await model.invoke('西安')).tool_calls).toMatchObject([
      { name: 'weather', args: { city: '西安' } },
    ])
    expect(String(bodyOf(0).messages[0]!.content)).toContain('这一步必须调用工具 weather，不要直接回答。')
  })

  it('aborts the upstream request when the invoke is aborted', async () => {
    server.script({ text: '这是一段很长很长很长的回答。', chunkSize: 1, delayMs: 200 })
    const controller = new AbortController()
    const answer = createModel().invoke('讲个长故事', { signal: controller.signal })
    await waitUntil(() => server.requests.length === 1, 'the request reached the server')
    controller.abort()
    await expect(answer).rejects.toThrow()
    await waitUntil(() => server.requests[0]!.closedEarly, 'the server saw the connection close')
  })

  it('stops the upstream request when the consumer leaves a stream early', async () => {
    server.script({ text: '一二三四五六七八九十', chunkSize: 1, delayMs: 100 })
    for await (const chunk of await createModel().stream('数数')) if (chunk.content) break
    await waitUntil(() => server.requests[0]!.closedEarly, 'the server saw the connection close')
  })

  it('passes provider failures through as charpipe errors, after the configured retries', async () => {
    server.script([
      { status: 503, body: { error: { message: 'busy' } } },
      { status: 503, body: { error: { message: 'busy' } } },
    ])
    await expect(createModel({ max_retries: 0 }).invoke('hi')).rejects.toMatchObject({
      code: 'upstream_http',
      status: 503,
    })
  })

  it('falls back to the next provider of the llm block', async () => {
    server.script([{ status: 401, body: { error: { message: 'bad key' } } }, { text: '备用回答' }])
    const model = createModel({
      fallbacks: [{ provider: 'custom', base_url: `${server.url}/v1`, model: 'backup', api_key: 'sk-two' }],
    })
    expect((await model.invoke('hi')).content).toBe('备用回答')
    expect(server.requests).toHaveLength(2)
    expect((server.requests[1]!.body as { model?: string }).model).toBe('backup')
    expect(server.requests[1]!.headers.authorization).toBe('Bearer sk-two')
  })

  it('refuses a bad llm block naming the field, and unsupported call options clearly', () => {
    expect(() => new ChatCharpipe({ llm: { temperature: 5 } })).toThrow(/llm\.temperature/)
    expect(() => new ChatCharpipe({ llm: { provider: 'nowhere' } })).toThrow(/llm\.base_url/)
    const model = createModel()
    expect(() => model.bindTools([{ description: 'no name' }])).toThrow(/tools\[0\]/)
    return expect(model.bindTools([weather]).invoke('hi', { tool_choice: 'clock' })).rejects.toThrow(
      /tool_choice "clock" is not supported: .*bound tool \(weather\)/,
    )
  })

  it('answers from the builtin mock provider when the llm block is empty (the config default)', async () => {
    const model = new ChatCharpipe()
    models.push(model)
    const answer = await model.invoke('你好')
    expect(String(answer.content)).toContain('你好')
    let streamed = ''
    for await (const chunk of await model.stream('再见')) streamed += String(chunk.content)
    expect(streamed).toContain('再见')
  })

  it('keeps the api key out of what LangChain serialises for tracing', () => {
    const model = createModel({ api_key: 'sk-very-secret-key' })
    expect(JSON.stringify(model)).not.toContain('sk-very-secret-key')
    expect(JSON.stringify(model.invocationParams())).not.toContain('sk-very-secret-key')
  })
})
