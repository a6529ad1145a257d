import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'
import { openTestSocket, type TestSocket } from './websocket-client.js'

let model: MockModelServer
let server: TestServer | undefined
let client: TestSocket | undefined

beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await client?.close()
  await server?.stop()
  client = undefined
  server = undefined
  model.reset()
})

async function startQueued(): Promise<TestSocket> {
  server = await startServerOverModel(model.url, [
    'conversation:',
    '  on_new_input: queue',
    'memory:',
    '  enabled: false',
  ])
  client = await openTestSocket(`${server.url}/ws`)
  return client
}

async function storedContents(session: string): Promise<string[]> {
  const response = await fetch(`${server!.url}/api/sessions/${session}/messages`)
  return ((await response.json()) as { messages: { content: string }[] }).messages.map(
    (message) => message.content,
  )
}

const slow = { text: '慢慢地说一句很长很长的话。', chunkSize: 1, delayMs: 40 }
const quick = { text: '好的。' }

describe('queue mode interrupts over the WebSocket', () => {
  it('an interrupt frame stops the running turn; the queued turns still run', async () => {
    const socket = await startQueued()
    model.script([slow, quick, quick])
    for (const text of ['一', '二', '三']) socket.send({ type: 'user_input', session: 'q', text })
    await socket.waitFor((frame) => frame.type === 'llm_chunk')
    socket.send({ type: 'interrupt', session: 'q' })
    await expect.poll(() => socket.frames.filter((frame) => frame.type === 'llm_done').length).toBe(3)
    const done = socket.frames.filter((frame) => frame.type === 'llm_done')
    expect(done.map((frame) => frame.interrupted)).toEqual([true, false, false])
    expect(model.requests).toHaveLength(3)
  })

  it('clear_queue: true cancels the queued turns too, and they are not stored', async () => {
    const socket = await startQueued()
    model.script([slow, quick, quick])
    for (const text of ['一', '二', '三']) socket.send({ type: 'user_input', session: 'c', text })
    await socket.waitFor((frame) => frame.type === 'llm_chunk')
    socket.send({ type: 'interrupt', session: 'c', clear_queue: true })
    await expect.poll(() => socket.frames.filter((frame) => frame.type === 'llm_done').length).toBe(3)
    const done = socket.frames.filter((frame) => frame.type === 'llm_done')
    expect(done.map((frame) => frame.interrupted)).toEqual([true, true, true])
    expect(model.requests).toHaveLength(1)
    const stored = await storedContents('c')
    expect(stored[0]).toBe('一')
    expect(stored).not.toContain('二')
    expect(stored).not.toContain('三')
  })
})
