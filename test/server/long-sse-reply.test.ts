/**
 * A long reply from a fast model, streamed over SSE to a client that reads as it comes, arrives
 * whole: through `/v1/chat/completions` (the official client) and through `/api/chat` (a message for
 * each of 80,000 sentences, hundreds from each read of the model). The routes' writer waits for the
 * response's 'drain' whenever the response's buffer is full, an event Node 26 can leave unsent for
 * good after many small writes in one tick (nodejs/node#64680: a model in this suite that wrote in
 * a loop stood still on it), which would hold the stream until the reader's bound cut it.
 */
import OpenAI from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { readSse } from './read-sse.js'
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
// The reader's bound past the whole reply (12 MB of /api/chat messages): a client in this process,
// sharing its CPU with the server, may lag by all of it, and is cut at the bound as it should be
// (paused-reader-memory.test.ts). Here what is measured is the writer, not the bound.
const serverYaml = ['memory: { enabled: false }', `server: { ws_max_buffered_bytes: ${128 * 1024 * 1024} }`]
describe('a long reply over SSE', { timeout: 60_000 }, () => {
  it('reaches a client that reads as it comes, whole', async () => {
    model = await startMockModelServer({
      script: { replies: [], default: { text: reply, chunkSize: 40_000, delayMs: 0 } },
    })
    server = await startServerOverModel(model.url, serverYaml)
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

  it('reaches an /api/chat reader whole, a message for each of its many sentences', async () => {
    model = await startMockModelServer({
      script: { replies: [], default: { text: reply, chunkSize: 40_000, delayMs: 0 } },
    })
    server = await startServerOverModel(model.url, serverYaml)
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session: 'long', text: '说吧' }),
    })
    const events = (await readSse(response)).map((message) => JSON.parse(message.data))
    const sentences = events.filter((event) => event.type === 'llm_sentence')
    expect(sentences).toHaveLength(reply.length / 5)
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', interrupted: false })
  })
})
