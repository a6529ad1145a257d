/**
 * `/v1/responses` for a named client (`server.clients[].profile`) and for requests shaped as the
 * Open Responses compliance suite sends them (message items with string content, a system message
 * in the input, an earlier assistant turn, an image): every answer a valid `ResponseResource`.
 */
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { expectValidResource } from './open-responses-schemas.js'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()
const vtuberToken = 'vtuber-token-0123456789abcdef'

const start = () =>
  suite.start([
    'character:',
    '  name: Mika',
    '  persona: A cheerful barista who loves latte art.',
    'server:',
    '  clients:',
    '    - name: vtuber',
    `      token: ${vtuberToken}`,
    '      profile: { session: client, persona: server, history: server, emotion: bracket }',
  ])

type SentMessage = { role: string; content: unknown }
const sentTo = (index = -1): SentMessage[] =>
  (suite.model.requests.at(index)!.body as { messages: SentMessage[] }).messages

async function postResponses(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${suite.server.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mika', ...body }),
  })
  expect(response.status).toBe(200)
  const resource = await response.json()
  expectValidResource(resource)
  return resource
}

describe('/v1/responses for a named client', () => {
  it("follows the profile: the server's persona and history, the emotion inline in its dialect and in metadata", async () => {
    await start()
    suite.model.script([
      { text: '{"emotion":"happy","text":"Welcome back!"}' },
      { text: '{"emotion":"sad","text":"Sorry to hear."}' },
    ])
    const client = new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: vtuberToken, maxRetries: 0 })
    const first = await client.responses.create({
      model: 'anything',
      instructions: 'You are a generic assistant.',
      input: 'Hello',
    })
    // Mika is an English character: her labels are the English ones.
    expect(first.output_text).toBe('[happy]Welcome back!')
    expect(first.metadata).toMatchObject({ emotion: 'happy' })
    // persona: server: the character's prompt, not the client's instructions.
    expect(JSON.stringify(sentTo())).toContain('latte art')
    expect(JSON.stringify(sentTo())).not.toContain('generic assistant')
    const second = await client.responses.create({ model: 'anything', input: 'I lost my keys' })
    expect(second.output_text).toBe('[sad]Sorry to hear.')
    // history: server: the stored conversation reaches the model.
    const spoken = sentTo()
      .filter((message) => message.role !== 'system')
      .map((message) => message.content)
    expect(spoken).toEqual(['Hello', expect.stringContaining('Welcome back!'), 'I lost my keys'])
  })
})

describe('requests shaped as the compliance suite sends them', () => {
  it('basic, system prompt, multi-turn and image input each answer a completed, valid resource', async () => {
    await start()
    const requests = [
      { input: [{ type: 'message', role: 'user', content: 'Say hello in exactly 3 words.' }] },
      {
        input: [
          { type: 'message', role: 'system', content: 'You are a pirate. Always respond in pirate speak.' },
          { type: 'message', role: 'user', content: 'Say hello.' },
        ],
      },
      {
        input: [
          { type: 'message', role: 'user', content: 'My name is Alice.' },
          { type: 'message', role: 'assistant', content: 'Hello Alice! Nice to meet you.' },
          { type: 'message', role: 'user', content: 'What is my name?' },
        ],
      },
      {
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'What do you see in this image?' },
              {
                type: 'input_image',
                image_url:
                  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
              },
            ],
          },
        ],
      },
    ]
    for (const request of requests) {
      const resource = await postResponses(request)
      expect(resource.status).toBe('completed')
      expect((resource.output as unknown[]).length).toBeGreaterThan(0)
    }
    // The pirate's system message replaced the persona; the earlier assistant turn was sent.
    const pirate = suite.model.requests.at(-3)!.body as { messages: SentMessage[] }
    expect(JSON.stringify(pirate.messages[0])).toContain('pirate')
    expect(JSON.stringify(sentTo(-2))).toContain('Hello Alice!')
  })
})

describe('/v1/responses refusals before the route', () => {
  it('answers a refused token with the OpenAI error object too, every field a string', async () => {
    await suite.start(['server:', '  token: server-token-0123456789abcdef'])
    const response = await fetch(`${suite.server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-0123456789' },
      body: JSON.stringify({ model: 'mika', input: 'Hi' }),
    })
    expect(response.status).toBe(401)
    const { error } = await response.json()
    expect(error).toMatchObject({ type: error.code, param: '', code: expect.any(String) })
    expect(typeof error.message).toBe('string')
    expect(JSON.stringify(error)).not.toContain('server-token')
  })
})
