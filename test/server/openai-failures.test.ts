import OpenAI from 'openai'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { readSse } from './read-sse.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'

let model: MockModelServer
let server: TestServer | undefined

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await server?.stop()
  server = undefined
  model.reset()
})

async function startWithEngine(): Promise<TestServer> {
  server = await startServerOverModel(model.url)
  return server
}

function postCompletion(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server!.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '讲个故事' }], ...body }),
  })
}

const longReply = '从前有一座山。山上有一座庙。庙里有个老和尚在讲故事。'.repeat(4)

describe('/v1/chat/completions failures', () => {
  it('streams an error object before [DONE], and no finish_reason "stop", for a reply cut by the upstream', async () => {
    await startWithEngine()
    model.script({ text: longReply, chunkSize: 4, breakAfterChunks: 4 })
    const response = await postCompletion({ stream: true })
    expect(response.status).toBe(200)
    const messages = await readSse(response)
    expect(messages.at(-1)?.data).toBe('[DONE]')
    const payloads = messages.slice(0, -1).map((message) => JSON.parse(message.data))
    const text = payloads.map((payload) => payload.choices?.[0]?.delta?.content ?? '').join('')
    expect(text.length).toBeGreaterThan(0)
    expect(payloads.at(-1)).toMatchObject({ error: { type: 'upstream_stream', code: 'upstream_stream' } })
    const finishes = payloads.map((payload) => payload.choices?.[0]?.finish_reason).filter(Boolean)
    expect(finishes).toEqual([])
  })

  it('answers a streamed request that fails before any text with a non-2xx OpenAI error', async () => {
    await startWithEngine()
    model.script({ status: 500, body: { error: { message: 'model exploded' } } })
    const client = new OpenAI({ baseURL: `${server!.url}/v1`, apiKey: 'unused', maxRetries: 0 })
    await expect(
      client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: '你好' }],
        stream: true,
      }),
    ).rejects.toMatchObject({ status: 502, code: 'upstream_http' })
  })

  it('answers a non-streamed request whose reply was cut with a non-2xx error, not a partial reply', async () => {
    await startWithEngine()
    model.script({ text: longReply, chunkSize: 4, breakAfterChunks: 4 })
    const response = await postCompletion({})
    expect(response.status).toBeGreaterThanOrEqual(500)
    const body = (await response.json()) as { error: { code: string; message: string }; choices?: unknown }
    expect(body.error.code).toBe('upstream_stream')
    expect(body.choices).toBeUndefined()
  })
})

describe('/v1/chat/completions usage', () => {
  it("reports the model's own usage, streamed and not", async () => {
    await startWithEngine()
    const reply = { text: '好的。', usage: { inputTokens: 321, outputTokens: 12 } }
    model.script([reply, reply])
    const plain = (await (await postCompletion({})).json()) as { usage: Record<string, number> }
    expect(plain.usage).toEqual({ prompt_tokens: 321, completion_tokens: 12, total_tokens: 333 })
    const streamed = await readSse(
      await postCompletion({ stream: true, stream_options: { include_usage: true } }),
    )
    const usage = streamed
      .filter((message) => message.data !== '[DONE]')
      .map((message) => JSON.parse(message.data))
      .find((payload) => payload.usage)?.usage
    expect(usage).toEqual({ prompt_tokens: 321, completion_tokens: 12, total_tokens: 333 })
  })

  it('counts the prompt as sent (persona and history, not only the user text) when the model reports none', async () => {
    await startWithEngine()
    const frame = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    model.script({ rawChunks: [frame({ content: '好的。' }), frame({}, 'stop'), 'data: [DONE]\n\n'] })
    const body = (await (await postCompletion({ messages: [{ role: 'user', content: '嗨' }] })).json()) as {
      usage: Record<string, number>
    }
    const sent = model.requests.at(-1)?.body as { messages: { content: string }[] }
    const sentCharacters = sent.messages.reduce((sum, message) => sum + String(message.content).length, 0)
    // The user's text alone is one or two tokens; the persona sent with it is far more.
    expect(sentCharacters).toBeGreaterThan(20)
    expect(body.usage.prompt_tokens).toBeGreaterThan(10)
    expect(body.usage.completion_tokens).toBeGreaterThan(0)
  })
})
