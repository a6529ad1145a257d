import { DynamicTool, tool } from '@langchain/core/tools'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createCharpipe } from '../../engine/create-charpipe.js'
import { makeConfig } from '../../testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../testing/start-mock-model-server.js'
import { collectEvents, doneOf } from '../../testing/turn-events.js'
import { createToolRegistry } from '../../tools/tool-registry.js'
import type { Tool } from '../../tools/types.js'
import { toCharpipeTool } from './to-charpipe-tool.js'
import { toLangChainTool } from './to-langchain-tool.js'

const turnOptions = () => ({ signal: new AbortController().signal, session: 's1', turn: 't1' })

const weather = tool(async ({ city, unit }) => JSON.stringify({ city, sky: '晴', unit }), {
  name: 'weather',
  description: '查询城市天气',
  schema: z.object({ city: z.string().describe('城市'), unit: z.enum(['c', 'f']).default('c') }),
})

describe('toCharpipeTool', () => {
  it('keeps the name, description and schema (as JSON Schema) and runs the tool', async () => {
    const converted = toCharpipeTool(weather)
    expect(converted.name).toBe('weather')
    expect(converted.description).toBe('查询城市天气')
    expect(converted.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string', description: '城市' }, unit: { enum: ['c', 'f'] } },
      required: expect.arrayContaining(['city']),
    })
    expect(await converted.execute({ city: '北京' }, turnOptions())).toEqual({
      city: '北京',
      sky: '晴',
      unit: 'c',
    })
  })

  it('leaves plain text results as text and works for string-input tools', async () => {
    const echo = new DynamicTool({
      name: 'echo',
      description: '复述',
      func: async (input) => `你说：${input}`,
    })
    const converted = toCharpipeTool(echo)
    expect(await converted.execute({ input: '你好' }, turnOptions())).toBe('你说：你好')
  })

  it('gives bad arguments back to the model as the result, through the registry', async () => {
    const registry = createToolRegistry([toCharpipeTool(weather)])
    const run = await registry.run({ id: 'c1', name: 'weather', arguments: { town: 'x' } }, turnOptions())
    expect(run.isError).toBe(true)
    expect(JSON.stringify(run.result)).toMatch(/schema|city/i)
  })

  it("passes the turn's abort signal to the tool", async () => {
    let seen: AbortSignal | undefined
    const slow = tool(
      (_args, config) =>
        new Promise<string>((_resolve, reject) => {
          seen = config.signal
          config.signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
        }),
      { name: 'slow', description: 'takes long', schema: z.object({}) },
    )
    const controller = new AbortController()
    const running = toCharpipeTool(slow).execute({}, { signal: controller.signal, session: 's', turn: 't' })
    // Once the tool runs (it has its signal), abort it.
    await vi.waitFor(() => expect(seen).toBeDefined())
    controller.abort()
    await expect(running).rejects.toThrow()
    expect(seen?.aborted).toBe(true)
  })

  it('refuses what is not a LangChain tool', () => {
    expect(() => toCharpipeTool({} as never)).toThrow(/needs a LangChain tool/)
  })
})

describe('a character using a LangChain tool (the real engine against the mock model server)', () => {
  let server: MockModelServer
  beforeAll(async () => {
    server = await startMockModelServer()
  })
  beforeEach(() => server.reset())
  afterAll(() => server.close())

  for (const functionCalling of [true, false]) {
    it(`calls it and answers with the result (function_calling: ${functionCalling})`, async () => {
      server.script([
        functionCalling
          ? { toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: '杭州' } }] }
          : { text: '{"tool_call": {"name": "weather", "arguments": {"city": "杭州"}}}' },
        { text: '杭州今天晴。' },
      ])
      const config = makeConfig({
        llm: {
          provider: 'custom',
          base_url: `${server.url}/v1`,
          max_retries: 0,
          function_calling: functionCalling,
        },
        character: { reply_format: 'plain' },
      })
      const charpipe = await createCharpipe(config, { tools: [toCharpipeTool(weather)] })
      try {
        const events = await collectEvents(charpipe.generate({ text: '杭州天气？' }))
        expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
          result: { city: '杭州', sky: '晴', unit: 'c' },
        })
        expect(doneOf(events).text).toBe('杭州今天晴。')
        expect(JSON.stringify(server.requests[1]!.body)).toContain('\\"sky\\":\\"晴\\"')
      } finally {
        await charpipe.close()
      }
    })
  }
})

describe('toLangChainTool', () => {
  const add: Tool<{ a: number; b: number }> = {
    name: 'add',
    description: '两数相加',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    execute: ({ a, b }, options) => ({ sum: a + b, session: options.session }),
  }

  it('offers the JSON Schema, runs execute and answers JSON text', async () => {
    const converted = toLangChainTool(add as Tool, { session: 'lc' })
    expect(converted.name).toBe('add')
    expect(converted.description).toBe('两数相加')
    expect(await converted.invoke({ a: 2, b: 3 })).toBe('{"sum":5,"session":"lc"}')
    // And back again: the same tool, as charpipe sees it.
    const back = toCharpipeTool(converted)
    expect(back.parameters).toMatchObject(add.parameters)
    expect(await back.execute({ a: 1, b: 1 }, turnOptions())).toEqual({ sum: 2, session: 'lc' })
  })
})
