/**
 * A long reply from a fast model, streamed over SSE to a client that reads as it comes: it arrives
 * whole. The route's writer waits for the response's 'drain' whenever the response's buffer is full
 * (a dozen times here), an event Node 26 can leave unsent for good (nodejs/node#64680: a model in
 * this suite that wrote in a loop stood still on it), which would hold the stream until the
 * reader's bound cut it.
 */
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'

let model: MockModelServer | undefined
let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  await model?.close()
  server = undefined
  model = undefined
})

// 400,000 characters in 5-character sentences, in 40,000-character reads: megabytes of SSE, faster
// than the client reads it.
const reply = '风很大了。'.repeat(80_000)

describe('a long reply over SSE', { timeout: 60_000 }, () => {
  it('reaches a client that reads as it comes, whole', async () => {
    model = await startMockModelServer({
      script: { replies: [], default: { text: reply, chunkSize: 40_000, delayMs: 0 } },
    })
    server = await startServerOverModel(model.url, ['memory: { enabled: false }'])
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 })
    const stream = await client.chat.completions.create({
      model: 'default',
      stream: true,
      messages: [{ role: 'user', content: '说吧' }],
    })
    let text = ''
    let finish: string | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
    }
    expect(text.length).toBe(reply.length)
    expect(finish).toBe('stop')
  })
})
