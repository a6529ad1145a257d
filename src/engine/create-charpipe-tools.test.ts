import { describe, expect, it } from 'vitest'
import { messageText } from '../shared/messages.js'
import { createFakeParts } from '../testing/create-fake-engine-parts.js'
import { createScriptedProvider } from '../testing/create-scripted-provider.js'
import { makeConfig } from '../testing/create-turn-harness.js'
import { collectEvents, doneOf, sentencesOf, typesOf } from '../testing/turn-events.js'
import type { Tool } from '../tools/types.js'
import { createCharpipe } from './create-charpipe.js'

const weather: Tool<{ city: string }> = {
  name: 'weather',
  description: '查询城市天气',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }) => ({ city, sky: '晴' }),
}
const broken: Tool = {
  name: 'broken',
  description: 'always fails',
  parameters: { type: 'object' },
  execute: () => {
    throw new Error('service down')
  },
}
const tools = [weather, broken] as Tool[]

describe('tools: native function calling', () => {
  it('runs the call, gives the result back and speaks the final answer', async () => {
    const provider = createScriptedProvider([
      {
        toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: '北京' } }],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      { chunks: ['北京今天晴。'], usage: { inputTokens: 130, outputTokens: 6 } },
    ])
    const charpipe = await createCharpipe(makeConfig(), { parts: createFakeParts(), provider, tools })
    const events = await collectEvents(charpipe.generate({ text: '北京天气？' }))
    // Usage is the sum over the turn's model calls.
    expect(doneOf(events).usage).toEqual({ prompt_tokens: 230, completion_tokens: 16 })
    expect(typesOf(events).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(events[0]).toMatchObject({ id: 'c1', name: 'weather', arguments: { city: '北京' } })
    expect(events[1]).toMatchObject({ id: 'c1', result: { city: '北京', sky: '晴' } })
    expect(sentencesOf(events)).toEqual(['北京今天晴。'])
    expect(provider.requests[0]!.tools?.map((tool) => tool.name)).toEqual(['weather', 'broken'])
    const second = provider.requests[1]!.messages.slice(-2)
    expect(second[0]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'c1', name: 'weather' }] })
    expect(second[1]).toMatchObject({ role: 'tool', toolCallId: 'c1', content: '{"city":"北京","sky":"晴"}' })
  })

  it('returns a tool error to the model as the result', async () => {
    const provider = createScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'broken', arguments: {} }] },
      { chunks: ['查不到。'] },
    ])
    const charpipe = await createCharpipe(makeConfig(), { parts: createFakeParts(), provider, tools })
    const events = await collectEvents(charpipe.generate({ text: '?' }))
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      result: { error: 'service down' },
    })
    expect(doneOf(events)).toMatchObject({ text: '查不到。', interrupted: false })
  })

  it('stops offering tools after max_tool_steps rounds', async () => {
    const provider = createScriptedProvider([
      { toolCalls: [{ id: 'c1', name: 'weather', arguments: { city: 'a' } }] },
      { toolCalls: [{ id: 'c2', name: 'weather', arguments: { city: 'b' } }] },
      { chunks: ['够了。'] },
    ])
    const config = makeConfig({ llm: { max_tool_steps: 2 } })
    const charpipe = await createCharpipe(config, { parts: createFakeParts(), provider, tools })
    const events = await collectEvents(charpipe.generate({ text: '?' }))
    expect(typesOf(events).filter((type) => type === 'tool_call')).toHaveLength(2)
    expect(provider.requests.map((request) => Boolean(request.tools))).toEqual([true, true, false])
    expect(doneOf(events).text).toBe('够了。')
  })
})

describe('tools: described in the prompt (function_calling: false)', () => {
  it('parses the call from the reply text, never speaks it, and answers after the result', async () => {
    const provider = createScriptedProvider([
      { chunks: ['{"tool_', 'call": {"name": "weather", ', '"arguments": {"city": "上海"}}}'] },
      { chunks: ['上海今天晴。'] },
    ])
    const config = makeConfig({ llm: { function_calling: false } })
    const charpipe = await createCharpipe(config, { parts: createFakeParts(), provider, tools })
    const events = await collectEvents(charpipe.generate({ text: '上海天气？' }))
    expect(typesOf(events).slice(0, 2)).toEqual(['tool_call', 'tool_result'])
    expect(events.filter((event) => event.type === 'llm_chunk').map((event) => event.text)).toEqual([
      '上海今天晴。',
    ])
    expect(doneOf(events).text).toBe('上海今天晴。')
    const first = provider.requests[0]!
    expect(first.tools).toBeUndefined()
    expect(messageText(first.messages[0]!)).toContain('- weather: 查询城市天气')
    const last = provider.requests[1]!.messages.at(-1)!
    expect(last).toMatchObject({ role: 'user' })
    expect(messageText(last)).toBe('[工具结果 weather] {"city":"上海","sky":"晴"}')
  })

  it('speaks an ordinary reply as it streams', async () => {
    const provider = createScriptedProvider([{ chunks: ['不用', '工具。'] }])
    const config = makeConfig({ llm: { function_calling: false } })
    const charpipe = await createCharpipe(config, { parts: createFakeParts(), provider, tools })
    const events = await collectEvents(charpipe.generate({ text: '你好' }))
    expect(events.filter((event) => event.type === 'llm_chunk').map((event) => event.text)).toEqual([
      '不用',
      '工具。',
    ])
    expect(provider.requests).toHaveLength(1)
  })
})
