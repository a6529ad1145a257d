/**
 * `/v1/responses` (Open Responses) with the official `openai` SDK over the real engine and the mock
 * model server: every resource and every streamed event is validated against the spec's schemas
 * (test/fixtures/open-responses/); the events come in the order the SDK's stream helper needs;
 * `instructions`, images, `previous_response_id` and stored responses work as the Responses API
 * says; failures are OpenAI error objects or `response.failed`; a client that leaves mid-stream
 * leaves its turn stored as interrupted.
 */
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { expectValidEvent, expectValidResource } from './open-responses-schemas.js'
import { readSse } from './read-sse.js'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()

const characters = ['character:', '  name: Mika', '  persona: A cheerful barista who loves latte art.']
const start = () => suite.start(characters)

const openai = (headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers })

type SentMessage = {
  role: string
  content: string | { type: string; text?: string; image_url?: { url: string } }[]
}
const sentTo = (index = -1): SentMessage[] =>
  (suite.model.requests.at(index)!.body as { messages: SentMessage[] }).messages

function postResponses(body: Record<string, unknown>, init: { signal?: AbortSignal } = {}) {
  return fetch(`${suite.server.url}/v1/responses`, {
    ...init,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mika', ...body }),
  })
}

/** The events of a streamed answer, each validated against its schema. */
// biome-ignore lint/suspicious/noExplicitAny: the assertions read event fields by name
async function readEvents(response: Response): Promise<Record<string, any>[]> {
  const messages = await readSse(response)
  const events = messages.map((message) => {
    const event = JSON.parse(message.data)
    // The SSE event name is the event's type, as OpenAI sends it.
    expect(message.event).toBe(event.type)
    expectValidEvent(event)
    return event
  })
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index))
  return events
}

describe('POST /v1/responses with the openai SDK', () => {
  it('answers one resource, valid and complete, with the emotion in metadata, and stores it', async () => {
    await start()
    suite.model.script({ text: '{"emotion":"happy","text":"Welcome to the café!"}' })
    const response = await openai().responses.create({ model: 'mika', input: 'Hello there' })
    expectValidResource(JSON.parse(JSON.stringify(response)))
    expect(response.status).toBe('completed')
    expect(response.output_text).toBe('Welcome to the café!')
    // The character's own label for the emotion its reply named (Mika is English: happy).
    expect(response.metadata).toMatchObject({ emotion: 'happy' })
    expect(response.usage!.total_tokens).toBeGreaterThan(0)
    expect(response.id).toMatch(/^resp_/)
    const stored = await openai().responses.retrieve(response.id)
    expectValidResource(JSON.parse(JSON.stringify(stored)))
    expect(stored.output_text).toBe('Welcome to the café!')
    // One message: the server keeps the conversation, in the client's session `openai`.
    const history = await (await fetch(`${suite.server.url}/api/sessions/openai/messages`)).json()
    expect(history.messages.map((message: { content: string }) => message.content)).toEqual([
      'Hello there',
      'Welcome to the café!',
    ])
  })

  it('streams the full event order with sequence numbers, every event valid', async () => {
    await start()
    suite.model.script({ text: '{"emotion":"happy","text":"One, two, three."}', chunkSize: 5 })
    const events = await readEvents(await postResponses({ input: 'Count to three', stream: true }))
    const types = events.map((event) => event.type)
    const firstDelta = types.indexOf('response.output_text.delta')
    expect(types.slice(0, firstDelta)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ])
    expect(types.slice(types.lastIndexOf('response.output_text.delta') + 1)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    const deltas = events.filter((event) => event.type === 'response.output_text.delta')
    expect(deltas.map((event) => event.delta).join('')).toBe('One, two, three.')
    const completed = events.at(-1)!.response
    expect(completed.output[0].content[0].text).toBe('One, two, three.')
    expect(completed.metadata.emotion).toBe('happy')
    expect(completed.usage.total_tokens).toBeGreaterThan(0)
  })

  it('responses.create({stream: true}) iterates the events and responses.stream() gives the final response', async () => {
    await start()
    suite.model.script([{ text: 'First answer.' }, { text: 'Second answer.' }])
    const seen: string[] = []
    for await (const event of await openai().responses.create({ model: 'mika', input: 'Hi', stream: true })) {
      seen.push(event.type)
    }
    expect(seen.at(-1)).toBe('response.completed')
    const stream = openai().responses.stream({ model: 'mika', input: 'Hi again' })
    const final = await stream.finalResponse()
    expectValidResource(JSON.parse(JSON.stringify(final)))
    expect(final.output_text).toBe('Second answer.')
  })

  it('takes instructions as the client system message, and input_image parts as images', async () => {
    await start()
    const image =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    await openai().responses.create({
      model: 'mika',
      instructions: 'You are Captain Lark, a pirate.',
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', image_url: image, detail: 'auto' },
          ],
        },
      ],
    })
    const sent = sentTo()
    expect(sent[0]!.role).toBe('system')
    expect(sent[0]!.content).toContain('Captain Lark')
    expect(JSON.stringify(sent)).not.toContain('latte art')
    const last = sent.at(-1)!
    expect(last.role).toBe('user')
    expect(JSON.stringify(last.content)).toContain('What is in this picture?')
    expect(JSON.stringify(last.content)).toContain('image')
  })

  it('continues a stored response with previous_response_id; store: false keeps nothing', async () => {
    await start()
    suite.model.script([{ text: 'Nice to meet you, Alice.' }, { text: 'Your name is Alice.' }])
    const first = await openai().responses.create({
      model: 'mika',
      input: 'My name is Alice.',
      user: 'alice',
    })
    const second = await openai().responses.create({
      model: 'mika',
      input: 'What is my name?',
      previous_response_id: first.id,
    })
    expect(second.previous_response_id).toBe(first.id)
    const spoken = sentTo()
      .filter((message) => message.role !== 'system')
      .map((message) => message.content)
    expect(spoken).toEqual(['My name is Alice.', 'Nice to meet you, Alice.', 'What is my name?'])

    const unstored = await openai().responses.create({ model: 'mika', input: 'Hi', store: false })
    expect((unstored as unknown as { store: boolean }).store).toBe(false)
    await expect(openai().responses.retrieve(unstored.id)).rejects.toMatchObject({ status: 404 })
    await expect(
      openai().responses.create({ model: 'mika', input: 'And?', previous_response_id: unstored.id }),
    ).rejects.toMatchObject({ status: 404, error: { code: 'not_found', param: 'previous_response_id' } })
  })

  it('stores each input of a previous_response_id chain once, and the last request still sees it all', async () => {
    await start()
    const turns = ['One.', 'Two.', 'Three.', 'Four.', 'Five.']
    suite.model.script(turns.map((_, index) => ({ text: `Reply ${index + 1}.` })))
    const ids: string[] = []
    for (const text of turns) {
      const previous = ids.at(-1)
      const response = await openai().responses.create({
        model: 'mika',
        input: text,
        ...(previous ? { previous_response_id: previous } : {}),
      })
      ids.push(response.id)
    }
    const spoken = sentTo()
      .filter((message) => message.role !== 'system')
      .map((message) => message.content)
    expect(spoken).toEqual([
      'One.',
      'Reply 1.',
      'Two.',
      'Reply 2.',
      'Three.',
      'Reply 3.',
      'Four.',
      'Reply 4.',
      'Five.',
    ])

    // Every stored message of every record, counted: each input once, each output once.
    const storedTexts: string[] = []
    for (const id of ids) {
      const record = JSON.parse((await suite.server.charpipe.records.read({ kind: 'responses', id }))!) as {
        input: { content: string }[]
        conversation?: unknown
        resource: { output: { content: { text: string }[] }[] }
      }
      expect(record.conversation).toBeUndefined()
      storedTexts.push(...record.input.map((item) => item.content))
      storedTexts.push(...record.resource.output.flatMap((item) => item.content.map((part) => part.text)))
    }
    expect(storedTexts).toEqual(turns.flatMap((text, index) => [text, `Reply ${index + 1}.`]))
  })

  it('continues a response stored whole before chains were linked', async () => {
    await start()
    const earlier = await openai().responses.create({ model: 'mika', input: 'Hello' })
    const stored = JSON.parse(
      (await suite.server.charpipe.records.read({ kind: 'responses', id: earlier.id }))!,
    )
    const legacyId = `resp_${'0'.repeat(32)}`
    const legacy = {
      owner: stored.owner,
      resource: { ...stored.resource, id: legacyId },
      conversation: [
        { type: 'message', role: 'user', content: 'I am Alice.' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi Alice.' }] },
      ],
    }
    await suite.server.charpipe.records.keep({
      kind: 'responses',
      id: legacyId,
      value: JSON.stringify(legacy),
    })
    suite.model.script({ text: 'You are Alice.' })
    await openai().responses.create({ model: 'mika', input: 'Who am I?', previous_response_id: legacyId })
    const spoken = sentTo()
      .filter((message) => message.role !== 'system')
      .map((message) => message.content)
    expect(spoken).toEqual(['I am Alice.', 'Hi Alice.', 'Who am I?'])
  })

  it("keeps a client's stored responses from another client", async () => {
    await start()
    const mine = await openai({ 'X-Charpipe-Client': 'client-a' }).responses.create({
      model: 'mika',
      input: 'Hi',
    })
    await expect(
      openai({ 'X-Charpipe-Client': 'client-b' }).responses.retrieve(mine.id),
    ).rejects.toMatchObject({ status: 404 })
    await expect(
      openai({ 'X-Charpipe-Client': 'client-b' }).responses.create({
        model: 'mika',
        input: 'Go on',
        previous_response_id: mine.id,
      }),
    ).rejects.toMatchObject({ status: 404 })
    expect((await openai({ 'X-Charpipe-Client': 'client-a' }).responses.retrieve(mine.id)).id).toBe(mine.id)
  })
})

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Get the current weather for a location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
  },
  strict: false,
}

type ToolTraffic = {
  role: string
  tool_calls?: { id: string; function: { name: string; arguments: string } }[]
  tool_call_id?: string
  content: unknown
}

describe('client tools on /v1/responses', () => {
  it("offers the client's function tools and answers the model's call as a function_call item", async () => {
    await start()
    suite.model.script({
      text: '',
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { location: 'Paris' } }],
    })
    const response = await openai().responses.create({
      model: 'mika',
      input: "What's the weather in Paris?",
      tools: [weatherTool],
    })
    expectValidResource(JSON.parse(JSON.stringify(response)))
    const offered = (suite.model.requests.at(-1)!.body as { tools: { function: { name: string } }[] }).tools
    expect(offered.map((tool) => tool.function.name)).toContain('get_weather')
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"location":"Paris"}',
        status: 'completed',
      }),
    ])
  })

  it('streams a call with function_call_arguments delta and done, every event valid', async () => {
    await start()
    suite.model.script({
      text: '',
      toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: { location: 'Oslo' } }],
    })
    const events = await readEvents(
      await postResponses({ input: 'Weather in Oslo?', tools: [weatherTool], stream: true }),
    )
    const types = events.map((event) => event.type)
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events[2]!.item).toMatchObject({ type: 'function_call', name: 'get_weather', call_id: 'call_2' })
    expect(events[4]!.arguments).toBe('{"location":"Oslo"}')
  })

  it('continues the turn with function_call_output, after previous_response_id or with the whole input', async () => {
    await start()
    suite.model.script([
      { text: '', toolCalls: [{ id: 'call_3', name: 'get_weather', arguments: { location: 'Rome' } }] },
      { text: 'It is sunny in Rome.' },
      { text: 'Still sunny.' },
    ])
    const call = await openai().responses.create({
      model: 'mika',
      input: 'Weather in Rome?',
      tools: [weatherTool],
    })
    const answer = await openai().responses.create({
      model: 'mika',
      previous_response_id: call.id,
      tools: [weatherTool],
      input: [{ type: 'function_call_output', call_id: 'call_3', output: '{"sky":"sunny"}' }],
    })
    expect(answer.output_text).toBe('It is sunny in Rome.')
    const sent = (suite.model.requests.at(-1)!.body as { messages: ToolTraffic[] }).messages

    const tail = sent.slice(-3)
    expect(tail[0]).toMatchObject({ role: 'user', content: 'Weather in Rome?' })
    expect(tail[1]!.tool_calls![0]).toMatchObject({ id: 'call_3', function: { name: 'get_weather' } })
    expect(tail[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_3', content: '{"sky":"sunny"}' })

    // A client that keeps the conversation sends it all, with the call and its output.
    const again = await openai().responses.create({
      model: 'mika',
      tools: [weatherTool],
      input: [
        { type: 'message', role: 'user', content: 'Weather in Rome?' },
        { type: 'function_call', call_id: 'call_3', name: 'get_weather', arguments: '{"location":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_3', output: '{"sky":"sunny"}' },
      ],
    })
    expect(again.output_text).toBe('Still sunny.')
    const resent = (suite.model.requests.at(-1)!.body as { messages: ToolTraffic[] }).messages
    expect(resent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_3' })
  })
})

describe('/v1/responses failures', () => {
  it('refuses bad input with an OpenAI error object naming the problem, not to be retried', async () => {
    await start()
    const answer = await postResponses({
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_file' }] }],
    })
    expect(answer.status).toBe(400)
    expect(answer.headers.get('x-should-retry')).toBe('false')
    const body = await answer.json()
    expect(body.error).toEqual({
      message: expect.stringContaining('input_file'),
      type: 'bad_request',
      param: 'input',
      code: 'bad_request',
    })
    const schema = await postResponses({ input: 42 })
    expect(schema.status).toBe(400)
    expect((await schema.json()).error).toMatchObject({
      type: 'bad_request',
      param: '',
      code: 'bad_request',
    })
    const noUser = await postResponses({ input: [{ role: 'system', content: 'Only rules.' }] })
    expect((await noUser.json()).error.message).toContain('no message with role "user"')
  })

  it('answers a failure before any text with a non-2xx error, and a stream with response.failed after response.created', async () => {
    await start()
    suite.model.script({ status: 400, body: { error: { message: 'bad key' } } })
    await expect(openai().responses.create({ model: 'mika', input: 'Hi' })).rejects.toMatchObject({
      status: 502,
      error: { code: 'upstream_http', type: 'upstream_http' },
    })
    suite.model.script({ status: 400, body: { error: { message: 'bad key' } } })
    const answer = await postResponses({ input: 'Hi', stream: true })
    expect(answer.status).toBe(200)
    const events = await readEvents(answer)
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.failed',
    ])
    expect(events.at(-1)!.response.error).toMatchObject({ code: 'upstream_http' })
    // The SDK's stream helper reads the failure as the response's end, not as a transport error.
    suite.model.script({ status: 400, body: { error: { message: 'bad key' } } })
    const stream = await openai().responses.create({ model: 'mika', input: 'Hi', stream: true })
    const types: string[] = []
    for await (const event of stream) types.push(event.type)
    expect(types.at(-1)).toBe('response.failed')
  })

  it('ends a stream cut by the upstream with response.failed and a string code', async () => {
    await start()
    suite.model.script({
      text: 'Once upon a time there was a mountain. '.repeat(4),
      chunkSize: 4,
      breakAfterChunks: 4,
    })
    const events = await readEvents(await postResponses({ input: 'A story', stream: true }))
    const last = events.at(-1)!
    expect(last.type).toBe('response.failed')
    expect(last.response.status).toBe('failed')
    expect(typeof last.response.error.code).toBe('string')
    expect(events.some((event) => event.type === 'response.completed')).toBe(false)
    // The message is closed before the failure, as incomplete.
    const itemDone = events.find((event) => event.type === 'response.output_item.done')!
    expect(itemDone.item.status).toBe('incomplete')
  })

  it('takes a client that closes the stream as a barge-in: the turn and the response are stored interrupted', async () => {
    await start()
    suite.model.script({ text: 'A very long story about coffee. '.repeat(40), chunkSize: 4, delayMs: 20 })
    const controller = new AbortController()
    const response = await postResponses(
      { input: 'Tell me a story', stream: true, user: 'leaver' },
      { signal: controller.signal },
    )
    const reader = response.body!.getReader()
    let text = ''
    let id = ''
    while (!text.includes('output_text.delta')) {
      const { value } = await reader.read()
      text += new TextDecoder().decode(value)
      id ||= /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1] ?? ''
    }
    controller.abort()
    await expect
      .poll(
        async () => {
          const history = await (await fetch(`${suite.server.url}/api/sessions/leaver/messages`)).json()
          return history.messages.at(-1)
        },
        { timeout: 20_000 },
      )
      .toMatchObject({ role: 'assistant', interrupted: true })
    // Stored as far as it was sent: a start of the story, cut inside its first sentence.
    const history = await (await fetch(`${suite.server.url}/api/sessions/leaver/messages`)).json()
    const stored = history.messages.at(-1).content as string
    expect(stored.length).toBeGreaterThan(0)
    expect('A very long story about coffee. '.repeat(40).startsWith(stored)).toBe(true)
    await expect
      .poll(async () => (await fetch(`${suite.server.url}/v1/responses/${id}`)).status, { timeout: 20_000 })
      .toBe(200)
    const resource = await (await fetch(`${suite.server.url}/v1/responses/${id}`)).json()
    expectValidResource(resource)
    expect(resource).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'interrupted' } })
  })
})
