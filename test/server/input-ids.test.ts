/**
 * Input ids on every way in (PROTOCOL.md, third wave): `id` on `user_input` and `POST /api/chat`,
 * the `Idempotency-Key` header on `/v1/chat/completions`. A resend is the same turn: answered
 * again from the store, the model not asked twice, the turn stored once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { readSse } from './read-sse.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let model: MockModelServer
beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const messagesOf = async (session: string) =>
  (
    (await (await fetch(`${server!.url}/api/sessions/${session}/messages`)).json()) as {
      messages: { role: string; content: string }[]
    }
  ).messages

// The mock model numbers its answers: a second model call would answer differently.
describe('input ids', () => {
  it('user_input with an id: the resend is the same turn, stored once', async () => {
    server = await startServerOverModel(model.url)
    const socket = await openTestSocket(`${server.url}/ws`)
    socket.send({ type: 'user_input', session: 'ws-id', text: '你好', id: 'frame-1' })
    const first = await socket.waitForTurn('ws-id')
    const from = socket.frames.length
    socket.send({ type: 'user_input', session: 'ws-id', text: '你好', id: 'frame-1' })
    const again = await socket.waitForTurn('ws-id', from)
    expect(again.at(-1)).toMatchObject({
      type: 'llm_done',
      text: first.at(-1)!.text,
      turn: first.at(-1)!.turn,
    })
    expect((await messagesOf('ws-id')).map((message) => message.role)).toEqual(['user', 'assistant'])
    socket.send({ type: 'user_input', session: 'ws-id', text: '你好', id: 'x'.repeat(129) })
    expect(await socket.waitFor((frame) => frame.type === 'error', from)).toMatchObject({
      code: 'bad_request',
    })
    await socket.close()
  })

  it('POST /api/chat with an id and /v1 with Idempotency-Key answer a resend from the store', async () => {
    server = await startServerOverModel(model.url)
    const chat = () =>
      fetch(`${server!.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session: 'sse-id', text: '早上好', id: 'chat-1' }),
      })
    const first = (await readSse(await chat())).map((message) => JSON.parse(message.data))
    const again = (await readSse(await chat())).map((message) => JSON.parse(message.data))
    expect(again.at(-1)).toMatchObject({ type: 'llm_done', text: first.at(-1).text, turn: first.at(-1).turn })
    expect(await messagesOf('sse-id')).toHaveLength(2)

    const completion = () =>
      fetch(`${server!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': 'v1-id', 'idempotency-key': 'k-1' },
        body: JSON.stringify({ messages: [{ role: 'user', content: '晚上好' }] }),
      })
    const answers = [await (await completion()).json(), await (await completion()).json()]
    expect(answers[1].choices[0].message.content).toBe(answers[0].choices[0].message.content)
    expect(await messagesOf('v1-id')).toHaveLength(2)
  })
})
