/**
 * LangGraph's prebuilt ReAct agent with `ChatCharpipe` as its model, against the mock model server:
 * the model asks for a LangChain tool, the agent runs it, hands the result back and the model answers;
 * once with native function calling and once with the tools described in the prompt.
 */
import type { BaseMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { type MockModelServer, startMockModelServer } from '../../testing/start-mock-model-server.js'
import { ChatCharpipe } from './chat-charpipe.js'

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

function createAgent(functionCalling: boolean) {
  const asked: string[] = []
  const weather = tool(
    async ({ city }: { city: string }) => {
      asked.push(city)
      return JSON.stringify({ city, sky: '晴', celsius: 25 })
    },
    { name: 'weather', description: '查询城市天气', schema: z.object({ city: z.string() }) },
  )
  const llm = new ChatCharpipe({
    llm: {
      provider: 'custom',
      base_url: `${server.url}/v1`,
      api_key: 'sk-test',
      max_retries: 0,
      function_calling: functionCalling,
    },
  })
  models.push(llm)
  return { agent: createReactAgent({ llm, tools: [weather] }), asked }
}

interface WireMessage {
  role: string
  content: unknown
  tool_calls?: { id: string; function: { name: string } }[]
  tool_call_id?: string
}
const wireMessages = (index: number) => (server.requests[index]!.body as { messages: WireMessage[] }).messages

const typesOf = (messages: BaseMessage[]) => messages.map((message) => message.type)

describe('createReactAgent with ChatCharpipe', () => {
  it('calls a LangChain tool natively, gets the result and answers', async () => {
    server.script([
      { toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: '北京' } }] },
      { text: '北京今天晴，25 度。' },
    ])
    const { agent, asked } = createAgent(true)
    const result = await agent.invoke({ messages: [{ role: 'user', content: '北京天气怎么样？' }] })

    expect(asked).toEqual(['北京'])
    expect(typesOf(result.messages)).toEqual(['human', 'ai', 'tool', 'ai'])
    expect(result.messages.at(-1)!.content).toBe('北京今天晴，25 度。')
    // The second model request carries the call and its result, matched by id.
    const second = wireMessages(1)
    expect(second.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_1', function: { name: 'weather' } }],
    })
    expect(second.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    expect(JSON.parse(String(second.at(-1)!.content))).toEqual({ city: '北京', sky: '晴', celsius: 25 })
    expect((server.requests[0]!.body as { tools?: unknown[] }).tools).toHaveLength(1)
  })

  it('calls the tool through the prompt fallback when function_calling is off', async () => {
    server.script([
      { text: '{"tool_call": {"name": "weather", "arguments": {"city": "上海"}}}', chunkSize: 6 },
      { text: '上海今天晴，25 度。' },
    ])
    const { agent, asked } = createAgent(false)
    const result = await agent.invoke({ messages: [{ role: 'user', content: '上海天气怎么样？' }] })

    expect(asked).toEqual(['上海'])
    expect(typesOf(result.messages)).toEqual(['human', 'ai', 'tool', 'ai'])
    const call = result.messages[1]!
    expect(call.content).toBe('')
    expect((call as { tool_calls?: unknown[] }).tool_calls).toMatchObject([
      { name: 'weather', args: { city: '上海' } },
    ])
    expect(result.messages.at(-1)!.content).toBe('上海今天晴，25 度。')

    // No native tools anywhere: described in the system prompt, the result handed back as text.
    for (const request of server.requests) expect((request.body as { tools?: unknown }).tools).toBeUndefined()
    const first = wireMessages(0)
    expect(first[0]).toMatchObject({ role: 'system' })
    expect(String(first[0]!.content)).toContain('- weather: 查询城市天气')
    const second = wireMessages(1)
    expect(second.some((message) => message.role === 'tool' || message.tool_calls)).toBe(false)
    expect(second.at(-2)).toEqual({
      role: 'assistant',
      content: '{"tool_call":{"name":"weather","arguments":{"city":"上海"}}}',
    })
    expect(second.at(-1)).toEqual({
      role: 'user',
      content: '[工具结果 weather] {"city":"上海","sky":"晴","celsius":25}',
    })
  })

  it('streams the agent: the model streams its answer in several chunks', async () => {
    server.script([
      { toolCalls: [{ id: 'call_2', name: 'weather', arguments: { city: '广州' } }] },
      { text: '广州今天晴，适合出门。', chunkSize: 2 },
    ])
    const { agent } = createAgent(true)
    const pieces: string[] = []
    const stream = await agent.stream(
      { messages: [{ role: 'user', content: '广州天气？' }] },
      { streamMode: 'messages' },
    )
    for await (const [message] of stream) {
      if (message.type === 'ai' && typeof message.content === 'string' && message.content)
        pieces.push(message.content)
    }
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces.join('')).toBe('广州今天晴，适合出门。')
  })
})
