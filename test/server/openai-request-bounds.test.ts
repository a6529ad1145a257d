/**
 * The request bounds of `/v1/chat/completions` and `/v1/responses` (`server.limits.v1_*`): a request
 * past one is refused with 400 naming the bound and its setting, in the endpoint's own error shape,
 * before any work (no model request, nothing stored); a body past `server.max_body_bytes` is 413
 * before it is parsed. Sent with the official `openai` client.
 */
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { useServersOverMockModel } from './use-servers-over-mock-model.js'

const suite = useServersOverMockModel()

const start = (limits: string[] = []) =>
  suite.start([
    'character:',
    '  name: Mika',
    'server:',
    '  max_body_bytes: 200000',
    '  limits:',
    '    v1_input_items: 5',
    '    v1_instructions_chars: 100',
    '    v1_tools: 2',
    '    v1_tool_schema_bytes: 200',
    ...limits,
  ])

const openai = () => new OpenAI({ baseURL: `${suite.server.url}/v1`, apiKey: 'unused', maxRetries: 0 })

const tool = (name: string, parameters: Record<string, unknown> = { type: 'object', properties: {} }) => ({
  type: 'function' as const,
  name,
  parameters,
  strict: false,
})

const chatTool = (name: string, parameters?: Record<string, unknown>) => {
  const { type, ...rest } = tool(name, parameters)
  return { type, function: { name: rest.name, parameters: rest.parameters } }
}

const userItems = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ role: 'user' as const, content: `line ${index}` }))

const bigSchema = { type: 'object', properties: { note: { type: 'string', description: 'x'.repeat(300) } } }

describe('/v1/responses request bounds', () => {
  it.each([
    ['input items', { input: userItems(6) }, 'input', 'server.limits.v1_input_items'],
    [
      'instructions',
      { input: 'Hi', instructions: 'x'.repeat(101) },
      'instructions',
      'server.limits.v1_instructions_chars',
    ],
    ['tools', { input: 'Hi', tools: [tool('a'), tool('b'), tool('c')] }, 'tools', 'server.limits.v1_tools'],
    [
      'a tool schema',
      { input: 'Hi', tools: [tool('a', bigSchema)] },
      'tools',
      'server.limits.v1_tool_schema_bytes',
    ],
  ])(
    'refuses too many %s with 400 naming the bound, before any model request',
    async (_, body, param, setting) => {
      await start()
      const refusal = openai().responses.create({ model: 'mika', ...body } as never)
      await expect(refusal).rejects.toMatchObject({
        status: 400,
        error: { type: 'bad_request', code: 'bad_request', param, message: expect.stringContaining(setting) },
      })
      expect(suite.model.requests).toHaveLength(0)
    },
  )

  it('answers a request at every bound', async () => {
    await start()
    suite.model.script({ text: 'Fine.' })
    const answer = await openai().responses.create({
      model: 'mika',
      input: userItems(5),
      instructions: 'x'.repeat(100),
      tools: [tool('a'), tool('b')],
    })
    expect(answer.status).toBe('completed')
  })
})

describe('/v1/chat/completions request bounds', () => {
  it.each([
    ['messages', { messages: userItems(6) }, 'server.limits.v1_input_items'],
    [
      'system characters',
      {
        messages: [
          { role: 'system', content: 'x'.repeat(60) },
          { role: 'developer', content: 'y'.repeat(41) },
          { role: 'user', content: 'Hi' },
        ],
      },
      'server.limits.v1_instructions_chars',
    ],
    [
      'tools',
      { messages: userItems(1), tools: [chatTool('a'), chatTool('b'), chatTool('c')] },
      'server.limits.v1_tools',
    ],
    [
      'a tool schema',
      { messages: userItems(1), tools: [chatTool('a', bigSchema)] },
      'server.limits.v1_tool_schema_bytes',
    ],
  ])('refuses too many %s with 400 naming the bound, before any model request', async (_, body, setting) => {
    await start()
    const refusal = openai().chat.completions.create({ model: 'mika', ...body } as never)
    await expect(refusal).rejects.toMatchObject({
      status: 400,
      error: { code: 'bad_request', message: expect.stringContaining(setting) },
    })
    expect(suite.model.requests).toHaveLength(0)
  })
})

describe('the body size of /v1', () => {
  it.each(['/v1/responses', '/v1/chat/completions'])(
    '%s: a body past server.max_body_bytes is 413 before it is parsed (not JSON at all)',
    async (path) => {
      await start()
      // Not JSON: a 413 means the size was checked before any parse, which would answer 400.
      const answer = await fetch(`${suite.server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{'.repeat(250_000),
      })
      expect(answer.status).toBe(413)
      expect(JSON.stringify(await answer.json())).toContain('server.max_body_bytes')
    },
  )
})
