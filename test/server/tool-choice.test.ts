/**
 * `tool_choice` on both OpenAI-compatible endpoints, with the official `openai` SDK as the client
 * and the mock model server as the model: `required` and a named function go to the provider in its
 * own words (OpenAI `tool_choice`, Anthropic `{type: "any"}` / `{type: "tool", name}`), and a model
 * that answers in words anyway is answered as the model's failure, never as a plain reply:
 * a `model_error` with code `tool_choice_unmet` (500, `x-should-retry: false`), or, once a stream
 * has begun, `response.failed` / an error object before `[DONE]`.
 */
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { expectValidEvent, expectValidResource } from './open-responses-schemas.js'
import { readSse } from './read-sse.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()
const start = () => suite.start(['character:', '  name: Mika', '  persona: A barista.'])
const openai = () => new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: 'unused', maxRetries: 0 })

const weatherParameters = {
  type: 'object',
  properties: { location: { type: 'string' } },
  required: ['location'],
}
const responsesTools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather',
    parameters: weatherParameters,
    strict: false,
  },
  {
    type: 'function' as const,
    name: 'get_time',
    description: 'The time',
    parameters: { type: 'object' },
    strict: false,
  },
]
const chatTools = responsesTools.map(({ name, description, parameters }) => ({
  type: 'function' as const,
  function: { name, description, parameters },
}))
const weatherCall = { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { location: 'Oslo' } }] }

type ModelBody = { tool_choice?: unknown; tools?: { function: { name: string } }[] }
const sentToModel = () => suite.model.requests.at(-1)!.body as ModelBody

function postResponses(body: Record<string, unknown>) {
  return fetch(`${suite.server.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mika', ...body }),
  })
}

describe('tool_choice on /v1/responses', () => {
  it('"required" goes to the model, and its call comes back as a function_call item', async () => {
    await start()
    suite.model.script(weatherCall)
    const response = await openai().responses.create({
      model: 'mika',
      input: 'Weather in Oslo?',
      tools: responsesTools,
      tool_choice: 'required',
    })
    expect(sentToModel().tool_choice).toBe('required')
    expect(response.output).toMatchObject([{ type: 'function_call', name: 'get_weather' }])
    expect(response.tool_choice).toBe('required')
    expectValidResource(JSON.parse(JSON.stringify(response)))
  })

  it('a named function, in either wire form, goes to the model as that function', async () => {
    await start()
    suite.model.script([weatherCall, weatherCall])
    const named = await openai().responses.create({
      model: 'mika',
      input: 'Weather?',
      tools: responsesTools,
      tool_choice: { type: 'function', name: 'get_weather' },
    })
    expect(sentToModel().tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } })
    expect(named.tool_choice).toEqual({ type: 'function', name: 'get_weather' })
    const chatForm = await postResponses({
      input: 'Weather?',
      tools: responsesTools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    })
    expect(chatForm.status).toBe(200)
    expect(sentToModel().tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } })
    const resource = await chatForm.json()
    expectValidResource(resource)
    expect(resource.tool_choice).toEqual({ type: 'function', name: 'get_weather' })
  })

  it('allowed_tools offers only the tools it lists', async () => {
    await start()
    suite.model.script(weatherCall)
    const response = await postResponses({
      input: 'Weather?',
      tools: responsesTools,
      tool_choice: {
        type: 'allowed_tools',
        tools: [{ type: 'function', name: 'get_weather' }],
        mode: 'required',
      },
    })
    expect(response.status).toBe(200)
    expect(sentToModel().tools!.map((tool) => tool.function.name)).toEqual(['get_weather'])
    expect(sentToModel().tool_choice).toBe('required')
    expectValidResource(await response.json())
  })

  it('a text-only answer under "required" is a model_error, not a reply', async () => {
    await start()
    suite.model.script({ text: 'It is sunny, I think.' })
    const failure = await postResponses({ input: 'Weather?', tools: responsesTools, tool_choice: 'required' })
    expect(failure.status).toBe(500)
    expect(failure.headers.get('x-should-retry')).toBe('false')
    expect(await failure.json()).toEqual({
      error: {
        type: 'model_error',
        code: 'tool_choice_unmet',
        param: 'tool_choice',
        message: 'tool_choice is "required", but the model answered without calling a tool',
      },
    })

    suite.model.script({ text: 'It is sunny, I think.' })
    await expect(
      openai().responses.create({
        model: 'mika',
        input: 'Weather?',
        tools: responsesTools,
        tool_choice: { type: 'function', name: 'get_weather' },
      }),
    ).rejects.toMatchObject({ status: 500, code: 'tool_choice_unmet', type: 'model_error' })
  })

  it('streamed, a text-only answer under "required" ends with response.failed', async () => {
    await start()
    suite.model.script({ text: 'It is sunny, I think.' })
    const response = await postResponses({
      input: 'Weather?',
      tools: responsesTools,
      tool_choice: 'required',
      stream: true,
    })
    const events = (await readSse(response)).map((message) => JSON.parse(message.data))
    for (const event of events) expectValidEvent(event)
    const last = events.at(-1)
    expect(last.type).toBe('response.failed')
    expect(last.response.error).toEqual({
      code: 'tool_choice_unmet',
      message: 'tool_choice is "required", but the model answered without calling a tool',
    })
    expect(events.some((event) => event.type === 'response.completed')).toBe(false)
  })

  it('refuses a choice the tools cannot meet, naming the field', async () => {
    await start()
    for (const [body, message] of [
      [{ tool_choice: 'required' }, 'tool_choice: "required" needs at least one tool in tools'],
      [{ tools: responsesTools, tool_choice: { type: 'function', name: 'fly' } }, 'no function named fly'],
      [{ tools: responsesTools, tool_choice: { type: 'web_search' } }, 'type web_search is not supported'],
    ] as const) {
      const response = await postResponses({ input: 'Hi', ...body })
      expect(response.status).toBe(400)
      const { error } = await response.json()
      expect(error.param).toBe('tool_choice')
      expect(error.message).toContain(message)
    }
    expect(suite.model.requests).toHaveLength(0)
  })
})

describe('tools and tool_choice on /v1/chat/completions', () => {
  it('"required" goes to the model, and its call comes back as tool_calls', async () => {
    await start()
    suite.model.script(weatherCall)
    const completion = await openai().chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: chatTools,
      tool_choice: 'required',
    })
    expect(sentToModel().tool_choice).toBe('required')
    expect(sentToModel().tools!.map((tool) => tool.function.name)).toEqual(['get_weather', 'get_time'])
    const choice = completion.choices[0]!
    expect(choice.finish_reason).toBe('tool_calls')
    expect(choice.message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
    ])
  })

  it('a named function, streamed: the SDK helper assembles the call', async () => {
    await start()
    suite.model.script(weatherCall)
    const stream = openai().chat.completions.stream({
      model: 'mika',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: chatTools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    })
    const completion = await stream.finalChatCompletion()
    expect(sentToModel().tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } })
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls')
    expect(completion.choices[0]!.message.tool_calls).toMatchObject([
      { id: 'call_1', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
    ])
  })

  it("continues the turn with the client's tool result", async () => {
    await start()
    suite.model.script({ text: 'Sunny in Oslo.' })
    const completion = await openai().chat.completions.create({
      model: 'mika',
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' },
      ],
      tools: chatTools,
    })
    expect(completion.choices[0]!.message.content).toBe('Sunny in Oslo.')
    const sent = (suite.model.requests.at(-1)!.body as { messages: Record<string, unknown>[] }).messages
    expect(sent.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1' }] })
    expect(sent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: '{"sky":"sunny"}' })
  })

  it('a text-only answer under "required" is a model_error, streamed or not', async () => {
    await start()
    suite.model.script({ text: 'It is sunny, I think.' })
    await expect(
      openai().chat.completions.create({
        model: 'mika',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: chatTools,
        tool_choice: 'required',
      }),
    ).rejects.toMatchObject({ status: 500, code: 'tool_choice_unmet', type: 'model_error' })

    suite.model.script({ text: 'It is sunny, I think.' })
    const stream = await openai().chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: chatTools,
      tool_choice: { type: 'function', function: { name: 'get_time' } },
      stream: true,
    })
    const finishes: unknown[] = []
    await expect(async () => {
      for await (const chunk of stream) finishes.push(chunk.choices[0]?.finish_reason)
    }).rejects.toThrow('tool_choice names the function get_time, but the model answered without calling it')
    // Nothing called the reply complete.
    expect(finishes.filter(Boolean)).toEqual([])
  })

  it('refuses tool_choice "required" without tools', async () => {
    await start()
    await expect(
      openai().chat.completions.create({
        model: 'mika',
        messages: [{ role: 'user', content: 'Hi' }],
        tool_choice: 'required',
      }),
    ).rejects.toMatchObject({ status: 400 })
    expect(suite.model.requests).toHaveLength(0)
  })
})

describe('tool_choice to an Anthropic model', () => {
  let server: TestServer | undefined
  afterEach(async () => {
    await server?.stop()
    server = undefined
  })

  it('is {type: "any"} for "required" and {type: "tool", name} for a named function', async () => {
    const { createCharpipe } = await import('../../src/engine/index.js')
    server = await startTestServer({
      configText: [
        'llm:',
        '  provider: anthropic',
        `  base_url: ${suite.model.url}`,
        '  api_key: sk-ant-test-0000',
        '  model: claude-test',
        '  max_retries: 0',
        'storage:',
        `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
      ].join('\n'),
      createCharpipe: (config, logger) => createCharpipe(config, { logger }),
    })
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 })
    suite.model.script([weatherCall, weatherCall])
    const required = await client.responses.create({
      model: 'mika',
      input: 'Weather?',
      tools: responsesTools,
      tool_choice: 'required',
    })
    expect(suite.model.requests.at(-1)!.path).toContain('/messages')
    expect(sentToModel().tool_choice).toEqual({ type: 'any' })
    expect(required.output).toMatchObject([{ type: 'function_call', name: 'get_weather' }])
    await client.chat.completions.create({
      model: 'mika',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: chatTools,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    })
    expect(sentToModel().tool_choice).toEqual({ type: 'tool', name: 'get_weather' })
  })
})
