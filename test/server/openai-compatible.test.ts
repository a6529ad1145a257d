import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const createClient = (headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: headers })

describe('POST /v1/chat/completions with the official openai client', () => {
  it('answers a non-streamed completion with the reply, its emotion, usage and the model echoed', async () => {
    server = await startTestServer()
    const completion = await createClient().chat.completions.create({
      model: 'my-character',
      messages: [
        { role: 'system', content: 'ignored: the server has its own persona' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'earlier' },
        { role: 'user', content: '你好呀' },
      ],
      user: 'openai-user',
    })
    expect(completion.object).toBe('chat.completion')
    expect(completion.model).toBe('my-character')
    const message = completion.choices[0]!.message as (typeof completion.choices)[0]['message'] & {
      emotion?: string
    }
    expect(message.content).toContain('「你好呀」')
    expect(message.emotion).toBe('开心')
    expect(completion.usage!.total_tokens).toBe(
      completion.usage!.prompt_tokens + completion.usage!.completion_tokens,
    )
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0)
    const history = await (await fetch(`${server.url}/api/sessions/openai-user/messages`)).json()
    expect(history.messages.map((stored: { content: string }) => stored.content)[0]).toBe('你好呀')
  })

  it('streams chat.completion.chunk deltas whose text adds up to the reply, then [DONE]', async () => {
    server = await startTestServer()
    const stream = await createClient({ 'X-Session-Id': 'header-session' }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: '讲个故事' }] }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let emotion: string | undefined
    let finish: string | null | undefined
    let usage: unknown
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk')
      const choice = chunk.choices[0]
      if (chunk.usage) usage = chunk.usage
      if (!choice) continue
      text += choice.delta.content ?? ''
      emotion = (choice.delta as { emotion?: string }).emotion ?? emotion
      finish = choice.finish_reason ?? finish
    }
    expect(text).toContain('「讲个故事」')
    expect(emotion).toBe('开心')
    expect(finish).toBe('stop')
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) })
    const history = await (await fetch(`${server.url}/api/sessions/header-session/messages`)).json()
    expect(history.messages[1].content).toBe(text)
  })

  it('keeps the conversation of one session across calls', async () => {
    server = await startTestServer()
    const client = createClient()
    await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'one' }],
      user: 'u',
    })
    const second = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'two' }],
      user: 'u',
    })
    expect(second.choices[0]!.message.content).toContain('第2轮')
  })

  it('turns an upstream failure into an API error the client raises, with the mapped status', async () => {
    server = await startTestServer()
    const client = createClient()
    await expect(
      client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: '!error upstream_timeout' }],
      }),
    ).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' })
    // Streamed too: a turn that fails before any text answers with the error, not a 200 stream.
    await expect(
      client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: '!error upstream_http' }],
        stream: true,
      }),
    ).rejects.toMatchObject({
      status: 502,
      code: 'upstream_http',
      message: expect.stringMatching(/fake upstream_http/),
    })
  })

  it('answers a request without a user message with bad_request', async () => {
    server = await startTestServer()
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'system', content: 'x' }] }),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/role "user"/)
  })
})

describe('POST /v1/chat/completions with the AI SDK', () => {
  it('streams and generates through createOpenAI(...).chat()', async () => {
    const { createOpenAI } = await import('@ai-sdk/openai')
    const { generateText, streamText } = await import('ai')
    server = await startTestServer()
    const provider = createOpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: 'unused',
      headers: { 'X-Session-Id': 'ai-sdk' },
    })
    const generated = await generateText({ model: provider.chat('character'), prompt: '你好', maxRetries: 0 })
    expect(generated.text).toContain('「你好」')
    const streamed = streamText({ model: provider.chat('character'), prompt: '再见', maxRetries: 0 })
    let text = ''
    for await (const delta of streamed.textStream) text += delta
    expect(text).toContain('「再见」')
    expect(text).toContain('第2轮')
  })
})
