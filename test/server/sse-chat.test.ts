import { afterEach, describe, expect, it } from 'vitest'
import { createManualClock } from '../../src/testing/create-manual-clock.js'
import { readSse } from './read-sse.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const postChat = (body: unknown, init: RequestInit = {}) =>
  fetch(`${server!.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })

describe('POST /api/chat', () => {
  it('answers one SSE message per event, named by its type', async () => {
    server = await startTestServer()
    const response = await postChat({ session: 'sse', text: '早上好', emotion: 'happy' })
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const messages = await readSse(response)
    const events = messages.map((message) => ({ name: message.event, event: JSON.parse(message.data) }))
    for (const { name, event } of events) {
      expect(name).toBe(event.type)
      expect(event.session).toBe('sse')
    }
    expect(events.at(-1)!.event).toMatchObject({ type: 'llm_done', interrupted: false })
    expect(events.some(({ event }) => event.type === 'llm_sentence')).toBe(true)
    const history = await (await fetch(`${server.url}/api/sessions/sse/messages`)).json()
    expect(history.messages[0]).toMatchObject({ role: 'user', content: '早上好', emotion: 'happy' })
  })

  const badBodies: { name: string; body: string; mentions: RegExp }[] = [
    { name: 'not JSON', body: 'text=hi', mentions: /not valid JSON/ },
    { name: 'empty', body: '', mentions: /empty/ },
    { name: 'missing text', body: '{"session":"a"}', mentions: /text/ },
    { name: 'text of the wrong type', body: '{"text":["a"]}', mentions: /text/ },
    { name: 'an unknown field', body: '{"text":"a","mood":"x"}', mentions: /mood/ },
    { name: 'images of the wrong type', body: '{"text":"a","images":[1]}', mentions: /images\.0/ },
  ]
  it.each(badBodies)('answers a body that is $name with 400 bad_request', async ({ body, mentions }) => {
    server = await startTestServer()
    const response = await postChat(body)
    expect(response.status).toBe(400)
    const answer = (await response.json()) as { error: { code: string; message: string } }
    expect(answer.error.code).toBe('bad_request')
    expect(answer.error.message).toMatch(mentions)
  })

  it('answers a body over max_body_bytes with bad_request naming the limit', async () => {
    server = await startTestServer({ configText: 'server:\n  max_body_bytes: 4096\n' })
    const response = await postChat({ text: 'x'.repeat(9000) })
    expect(response.status).toBe(413)
    const answer = (await response.json()) as { error: { code: string; message: string } }
    expect(answer.error).toMatchObject({ code: 'bad_request' })
    expect(answer.error.message).toContain('max_body_bytes (4096 bytes)')
    const after = await postChat({ text: 'small' })
    expect(after.status).toBe(200)
    await after.text()
  })

  it('interrupts the turn when the client goes away', async () => {
    // The clock stands still: the `!slow` turn waits after its first chunk until the client leaves.
    server = await startTestServer({ clock: createManualClock() })
    const controller = new AbortController()
    const response = await postChat(
      { session: 'gone', text: '!slow long story' },
      { signal: controller.signal },
    )
    const reader = response.body!.getReader()
    await reader.read()
    controller.abort()
    await server.fake!.idle('gone')
    const history = await (await fetch(`${server.url}/api/sessions/gone/messages`)).json()
    expect(history.messages.at(-1)).toMatchObject({ role: 'assistant', interrupted: true })
  })
})
