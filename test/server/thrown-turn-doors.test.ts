/**
 * A turn that throws mid-stream, on each HTTP door the one driver runs (`/api/chat`,
 * `/v1/chat/completions`, `/v1/responses`): the client reads what it was sent, then the door's
 * failure as its last message, and the cause goes to the log, not the client.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { GenerateInput } from '../../src/engine/types.js'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { createFakeCharpipe } from '../../src/testing/create-fake-charpipe.js'
import { readSse } from './read-sse.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined

afterEach(async () => {
  await server?.stop()
  server = undefined
})

/** A server whose every turn says one chunk, then throws. */
async function startThrowingServer(): Promise<TestServer> {
  server = await startTestServer({
    createCharpipe: async (config, _logger, { observers }) => {
      const charpipe = createFakeCharpipe({ config, observers })
      charpipe.generate = async function* (input: GenerateInput): AsyncGenerator<CharpipeEvent> {
        yield { type: 'llm_chunk', session: input.session ?? 'default', turn: 't', text: 'Once upon' }
        throw new Error('the engine broke')
      }
      return charpipe
    },
  })
  return server
}

const post = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('a turn that throws mid-stream', () => {
  it('/api/chat: the chunk, then the internal error message', async () => {
    await startThrowingServer()
    const messages = await readSse(await post('/api/chat', { session: 'thrown', text: 'hello' }))
    expect(messages.map((message) => message.event)).toEqual(['llm_chunk', 'error'])
    expect(JSON.parse(messages.at(-1)!.data)).toMatchObject({ code: 'internal' })
    expect(server!.logLines.some((line) => line.includes('chat turn failed'))).toBe(true)
  })

  it('/v1/chat/completions: the text, then the error object and [DONE]', async () => {
    await startThrowingServer()
    const response = await post('/v1/chat/completions', {
      model: 'my-character',
      stream: true,
      messages: [{ role: 'user', content: 'hello' }],
    })
    expect(response.status).toBe(200)
    const messages = await readSse(response)
    expect(messages.at(-1)?.data).toBe('[DONE]')
    expect(JSON.parse(messages.at(-2)!.data)).toMatchObject({ error: { code: 'internal' } })
    expect(messages.filter((message) => message.data === '[DONE]')).toHaveLength(1)
    expect(server!.logLines.some((line) => line.includes('completion turn failed'))).toBe(true)
  })

  it('/v1/responses: response.created first, response.failed last and once', async () => {
    await startThrowingServer()
    const response = await post('/v1/responses', { model: 'my-character', stream: true, input: 'hello' })
    expect(response.status).toBe(200)
    const events = (await readSse(response)).map((message) => message.event)
    expect(events[0]).toBe('response.created')
    expect(events.at(-1)).toBe('response.failed')
    expect(
      events.filter((event) => event === 'response.failed' || event === 'response.completed'),
    ).toHaveLength(1)
    expect(server!.logLines.some((line) => line.includes('response turn failed'))).toBe(true)
  })
})
