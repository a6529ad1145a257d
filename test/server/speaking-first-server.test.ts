/**
 * Speaking first only to someone, through the running server: a voice client that opens (follows)
 * a QQ group's session or a session of its own does not make the character talk into the empty
 * room, however long the quiet; once a person is there (the client's voice `activity`), the
 * character speaks first after `audience.idle.after_ms`. The engine's time is a manual clock.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createManualClock, type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket, type TestSocket } from './websocket-client.js'

const chatToken = 'idle-chat-token-0123456789'
const followerToken = 'idle-follower-token-0123456789'
const group = 'onebot:qq:group:123'
const clock = createManualClock()

let model: MockModelServer
let onebot: FakeOnebot
let server: TestServer
const sockets: TestSocket[] = []

beforeAll(async () => {
  model = await startMockModelServer({ respond: () => ({ text: '有人在吗？' }) })
  onebot = await startFakeOnebot()
  server = await startTestServer({
    configText: [
      'llm:',
      '  provider: custom',
      `  base_url: ${model.url}/v1`,
      '  model: mock-model',
      '  max_retries: 0',
      'storage:',
      `  sqlite_path: ${join('{folder}', 'charpipe.db')}`,
      'character:',
      '  name: 小雪',
      'audience:',
      '  idle: { after_ms: 5000, max_in_row: 1 }',
      'server:',
      `  token: ${chatToken}`,
      '  clients:',
      `    - { name: avatar, token: ${followerToken}, follow: [qq] }`,
      'connectors:',
      '  onebot:',
      `    - { name: qq, url: "${onebot.url}", groups: [123] }`,
    ].join('\n'),
    createCharpipe: (config, logger, owned) => createCharpipe(config, { logger, ...owned, clock }),
  })
  await vi.waitFor(() => expect(onebot.connectedCount()).toBe(1), { timeout: 15_000 })
})

afterAll(async () => {
  for (const socket of sockets) await socket.close()
  await server?.stop()
  await onebot?.close()
  await model?.close()
})

async function openSession(token: string, session: string) {
  const socket = await openTestSocket(`${server.url}/ws`, { authorization: `Bearer ${token}` })
  sockets.push(socket)
  socket.send({ type: 'open', session })
  await socket.waitFor((frame) => frame.type === 'opened' && frame.session === session)
  return socket
}

async function pass(milliseconds: number, step = 500) {
  for (let passed = 0; passed < milliseconds; passed += step) await clock.advance(step)
}

describe('speaking first through the server', () => {
  it('a client that only follows never starts an idle turn; its voice activity does', async () => {
    const avatar = await openSession(followerToken, group)
    const voice = await openSession(chatToken, 'living-room')
    await pass(60_000)
    expect(model.requests).toHaveLength(0)
    expect(onebot.calls.filter((call) => call.action === 'send_group_msg')).toHaveLength(0)
    expect(avatar.frames.some((frame) => frame.type === 'llm_done')).toBe(false)
    // A person is in the living room now: the quiet counts from here.
    const from = voice.frames.length
    voice.send({ type: 'activity', session: 'living-room', speaking: false })
    // Frames are taken in order: once the next one is answered, the activity has been taken.
    voice.send({ type: 'open', session: 'living-room' })
    await voice.waitFor((frame) => frame.type === 'opened', from)
    await pass(4500)
    expect(model.requests).toHaveLength(0)
    await pass(1000)
    const done = await voice.waitFor((frame) => frame.type === 'llm_done')
    expect(done).toMatchObject({ session: 'living-room', trigger: 'idle', text: '有人在吗？' })
    expect(model.requests).toHaveLength(1)
    // The group, where nobody spoke, is still quiet.
    expect(onebot.calls.filter((call) => call.action === 'send_group_msg')).toHaveLength(0)
  })
})
