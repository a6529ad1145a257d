import { mkdtemp, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createFakeProvider } from './create-fake-provider.js'
import { type MockModelServer, startMockModelServer } from './start-mock-model-server.js'

let server: MockModelServer
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
}

describe('startMockModelServer', () => {
  it('frames an OpenAI stream byte for byte: data lines, blank lines, [DONE]', async () => {
    server.script({ text: 'abc', chunkSize: 2 })
    const response = await post('/v1/chat/completions', { model: 'm', stream: true, messages: [] })
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    const body = await response.text()
    const events = body.split('\n\n')
    expect(events.at(-1)).toBe('')
    expect(events.at(-2)).toBe('data: [DONE]')
    const payloads = events.slice(0, -2).map((event) => JSON.parse(event.replace(/^data: /, '')))
    expect(payloads.map((chunk) => chunk.choices[0]?.delta?.content ?? null)).toEqual(['', 'ab', 'c', null])
    expect(payloads.at(-1).choices[0].finish_reason).toBe('stop')
  })

  it('breaks the connection after N events with no delay, once those events are on the wire', async () => {
    server.script({ text: 'abcdef', chunkSize: 2, breakAfterChunks: 3 })
    const body = JSON.stringify({ model: 'm', stream: true, messages: [] })
    // A raw socket: fetch would fail the whole body on the cut and hide what arrived.
    const received = await new Promise<string>((resolve, reject) => {
      let text = ''
      const socket = connect(server.port, '127.0.0.1')
      socket.on('data', (data) => {
        text += data.toString('utf8')
      })
      socket.on('error', reject)
      socket.on('close', () => resolve(text))
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: mock\r\ncontent-type: application/json\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
    })
    const contents = [...received.matchAll(/"content":"([^"]*)"/g)].map((match) => match[1])
    expect(contents).toEqual(['', 'ab', 'cd'])
    // No terminating chunk: the client sees a cut, not an end.
    expect(received).not.toContain('[DONE]')
    expect(received.endsWith('0\r\n\r\n')).toBe(false)
  })

  it('frames an Anthropic stream as event/data pairs with no [DONE]', async () => {
    server.script({ text: 'hi' })
    const body = await (await post('/v1/messages', { model: 'c', stream: true, messages: [] })).text()
    const events = body.split('\n\n').filter(Boolean)
    for (const event of events) expect(event).toMatch(/^event: (\w+)\ndata: \{"type":"\1"/)
    expect(events.at(-1)).toBe('event: message_stop\ndata: {"type":"message_stop"}')
    expect(body).not.toContain('[DONE]')
  })

  it('answers non-streamed requests and lists models', async () => {
    server.script([{ text: '一次性' }, { text: 'claude', toolCalls: [{ name: 'f', arguments: { a: 1 } }] }])
    const openai = await (await post('/v1/chat/completions', { model: 'm', messages: [] })).json()
    expect(openai.choices[0].message.content).toBe('一次性')
    const anthropic = await (await post('/v1/messages', { model: 'c', messages: [] })).json()
    expect(anthropic.content).toEqual([
      { type: 'text', text: 'claude' },
      { type: 'tool_use', id: 'toolu_mock_0', name: 'f', input: { a: 1 } },
    ])
    const models = await (await fetch(`${server.url}/v1/models`)).json()
    expect(models.data[0].id).toBe('mock-character')
  })

  it('counts the default reply in tokens of a tokenizer, its emotion read from the words; a scripted one as before', async () => {
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base')
    const messages = [
      { role: 'system', content: 'You are a friendly companion.' },
      { role: 'user', content: 'Hello! Nice to meet you.' },
    ]
    const answer = await (await post('/v1/chat/completions', { model: 'm', messages })).json()
    const text = answer.choices[0].message.content as string
    expect(text).toMatch(/^\{"emotion":"happy"\}That's great!/)
    expect(answer.usage).toMatchObject({
      prompt_tokens: countTokens('You are a friendly companion.\nHello! Nice to meet you.'),
      completion_tokens: countTokens(text),
    })
    expect(answer.usage.completion_tokens).toBeLessThan(Array.from(text).length / 2)
    const anthropic = await (
      await post('/v1/messages', {
        model: 'c',
        system: 'Be kind.',
        messages: [{ role: 'user', content: 'hi' }],
      })
    ).json()
    expect(anthropic.usage.input_tokens).toBe(countTokens('Be kind.\nhi'))
    // A scripted reply keeps the counts it always had.
    server.script([{ text: '一次性' }])
    const scripted = await (await post('/v1/chat/completions', { model: 'm', messages })).json()
    expect(scripted.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 3 })
  })

  it('takes a reply from an x-mock-reply header or a marker in the last user message', async () => {
    const header = await post(
      '/v1/chat/completions',
      { messages: [] },
      { 'x-mock-reply': '{"text":"from header"}' },
    )
    expect((await header.json()).choices[0].message.content).toBe('from header')
    const encoded = `base64:${Buffer.from(JSON.stringify({ text: '中文' })).toString('base64')}`
    const base64 = await post('/v1/chat/completions', { messages: [] }, { 'x-mock-reply': encoded })
    expect((await base64.json()).choices[0].message.content).toBe('中文')
    const marker = await post('/v1/chat/completions', {
      messages: [{ role: 'user', content: 'hello [[mock-reply:{"status":418}]]' }],
    })
    expect(marker.status).toBe(418)
  })

  it('reads no file a request names: a fixture comes only from the script', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mock-secret-'))
    const secret = join(folder, 'secret.json')
    await writeFile(secret, '{"secret":"do-not-serve"}')
    const header = await post(
      '/v1/chat/completions',
      { messages: [] },
      { 'x-mock-reply': JSON.stringify({ fixture: secret }) },
    )
    expect(header.status).toBe(400)
    const headerText = await header.text()
    expect(headerText).toContain('only be named by a script')
    expect(headerText).not.toContain('do-not-serve')
    const marker = await post('/v1/chat/completions', {
      messages: [{ role: 'user', content: `[[mock-reply:${JSON.stringify({ fixture: secret })}]]` }],
    })
    expect(marker.status).toBe(400)
    expect(await marker.text()).not.toContain('do-not-serve')
    // The script, which the user gave on purpose, still replays a fixture.
    server.script({ fixture: secret })
    const scripted = await post('/v1/chat/completions', { messages: [] })
    expect(await scripted.text()).toContain('do-not-serve')
  })

  it('sends an error status with its body and Retry-After', async () => {
    server.script({ status: 429, retryAfter: 3, body: { error: { message: 'slow down' } } })
    const response = await post('/v1/chat/completions', { stream: true, messages: [] })
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('3')
    expect(await response.json()).toEqual({ error: { message: 'slow down' } })
  })

  it('records requests, and refuses a bad script with the path of the problem', async () => {
    await post(
      '/v1/chat/completions',
      { model: 'x', messages: [{ role: 'user', content: 'hey' }] },
      { 'x-test': '1' },
    )
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      body: { model: 'x' },
      closedEarly: false,
    })
    expect(server.requests[0]!.headers['x-test']).toBe('1')
    expect(() => server.script({ chunkSize: 0 })).toThrow(/chunkSize/)
    const bad = await post('/v1/chat/completions', { messages: [] }, { 'x-mock-reply': '{"delayMs":-1}' })
    expect(bad.status).toBe(400)
    expect((await bad.json()).error.message).toContain('delayMs')
  })

  it('loads replies from a YAML script file', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mock-script-'))
    const path = join(folder, 'script.yaml')
    await writeFile(path, 'replies:\n  - text: first\ndefault:\n  text: always\n')
    const scripted = await startMockModelServer({ script: path })
    try {
      const texts = []
      for (let index = 0; index < 3; index++) {
        const response = await fetch(`${scripted.url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ messages: [] }),
        })
        texts.push((await response.json()).choices[0].message.content)
      }
      expect(texts).toEqual(['first', 'always', 'always'])
    } finally {
      await scripted.close()
    }
  })
})

describe('createFakeProvider', () => {
  it('yields scripted events, throws scripted errors and records calls', async () => {
    const fake = createFakeProvider({
      replies: [[{ type: 'text-delta', text: 'a' }], { events: [], error: new Error('boom') }],
    })
    const first = []
    for await (const event of fake.streamChat({ messages: [{ role: 'user', content: 'q' }] }))
      first.push(event)
    expect(first).toEqual([{ type: 'text-delta', text: 'a' }])
    await expect(async () => {
      for await (const _ of fake.streamChat({ messages: [] })) void _
    }).rejects.toThrow('boom')
    expect(fake.calls.map((call) => call.request.messages.length)).toEqual([1, 0])
  })
})
