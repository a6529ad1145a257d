/**
 * Say and event through the running server, over the real engine, the mock model server and a QQ
 * group on a fake OneBot implementation: a say reaches the group once with no model call, and a
 * client following the session hears it as a turn (`trigger: "say"`); an event is stored and the
 * model sees it with the next input, or is answered at once (`respond: true`). Only the admin token
 * or a named client that follows the session may use them: a chat client is refused, told why, and
 * text past the bound is refused naming it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { type FakeOnebot, startFakeOnebot } from '../connectors/fake-onebot-implementation.js'
import { startServerOverModel, type TestServer } from './start-test-server.js'
import { openTestSocket, type TestSocket } from './websocket-client.js'

const chatToken = 'say-chat-token-0123456789'
const adminToken = 'say-admin-token-0123456789'
const followerToken = 'say-follower-token-0123456789'
const everywhereToken = 'say-everywhere-token-0123456789'
const group = 'onebot:qq:group:123'

let model: MockModelServer
let onebot: FakeOnebot
let server: TestServer
const sockets: TestSocket[] = []

beforeAll(async () => {
  model = await startMockModelServer({ respond: () => ({ text: '收到，谢谢大家！' }) })
  onebot = await startFakeOnebot()
  server = await startServerOverModel(model.url, [
    'character:',
    '  name: 小雪',
    'conversation:',
    '  max_input_chars: 200',
    'server:',
    `  token: ${chatToken}`,
    `  admin_token: ${adminToken}`,
    '  clients:',
    `    - { name: follower, token: ${followerToken}, follow: [qq] }`,
    `    - { name: everywhere, token: ${everywhereToken}, follow: ["*"] }`,
    'connectors:',
    '  onebot:',
    `    - { name: qq, url: "${onebot.url}", groups: [123] }`,
  ])
  await vi.waitFor(() => expect(onebot.connectedCount()).toBe(1), { timeout: 15_000 })
})

afterAll(async () => {
  for (const socket of sockets) await socket.close()
  await server?.stop()
  await onebot?.close()
  await model?.close()
})

function post(path: string, token: string, body: unknown) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

const sessionPath = (session: string, suffix: string) =>
  `/api/sessions/${encodeURIComponent(session)}/${suffix}`
const groupMessages = () =>
  onebot.calls
    .filter((call) => call.action === 'send_group_msg')
    .map((call) => JSON.stringify(call.params.message))

async function openSocket(token: string) {
  const socket = await openTestSocket(`${server.url}/ws`, { authorization: `Bearer ${token}` })
  sockets.push(socket)
  return socket
}

describe('say', () => {
  it("reaches the group once, with no model call, and a follower hears the turn as the character's", async () => {
    const listener = await openSocket(followerToken)
    listener.send({ type: 'open', session: group })
    await listener.waitFor((frame) => frame.type === 'opened')
    const requestsBefore = model.requests.length
    const response = await post(sessionPath(group, 'say'), adminToken, { text: '大家晚上好！今晚八点开播。' })
    expect(response.status).toBe(202)
    const { turn } = (await response.json()) as { turn: string }
    const frames = await listener.waitForTurn(group)
    expect(frames.every((frame) => frame.turn === turn && frame.trigger === 'say')).toBe(true)
    expect(frames.filter((frame) => frame.type === 'llm_sentence').map((frame) => frame.text)).toEqual([
      '大家晚上好！',
      '今晚八点开播。',
    ])
    expect(frames.at(-1)).toMatchObject({ type: 'llm_done', text: '大家晚上好！今晚八点开播。' })
    // A second say after it: once both are in the group, the first was sent exactly once.
    expect((await post(sessionPath(group, 'say'), followerToken, { text: '第二句。' })).status).toBe(202)
    await vi.waitFor(
      () => expect(groupMessages().some((message) => message.includes('第二句。'))).toBe(true),
      {
        timeout: 15_000,
      },
    )
    expect(groupMessages().filter((message) => message.includes('大家晚上好'))).toHaveLength(1)
    expect(model.requests.length).toBe(requestsBefore)
    const stored = await fetch(`${server.url}${sessionPath(group, 'messages')}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    }).then((answer) => answer.json() as Promise<{ messages: { role: string; content: string }[] }>)
    expect(
      stored.messages.filter((message) => message.role === 'assistant').map((message) => message.content),
    ).toEqual(expect.arrayContaining(['大家晚上好！今晚八点开播。', '第二句。']))
  })

  it('is refused to a chat client and to a named client that does not follow the session, saying why', async () => {
    const byChat = await post(sessionPath('room', 'say'), chatToken, { text: '你好' })
    expect(byChat.status).toBe(403)
    expect(((await byChat.json()) as { error: { message: string } }).error.message).toMatch(
      /admin token or a named client that follows/,
    )
    const byFollower = await post(sessionPath('room', 'say'), followerToken, { text: '你好' })
    expect(byFollower.status).toBe(403)
    expect(((await byFollower.json()) as { error: { message: string } }).error.message).toMatch(
      /client "follower" does not.*follow/,
    )
    expect((await post(sessionPath('room', 'say'), everywhereToken, { text: '你好' })).status).toBe(202)
    const socket = await openSocket(chatToken)
    socket.send({ type: 'say', session: 'room', text: '你好' })
    const refused = await socket.waitFor((frame) => frame.type === 'error')
    expect(refused).toMatchObject({ code: 'forbidden', session: 'room' })
    expect(String(refused.message)).toMatch(/ws_say needs the admin token/)
  })

  it('refuses text past conversation.max_input_chars, and fields it does not know, naming them', async () => {
    const long = await post(sessionPath('room', 'say'), adminToken, { text: '长'.repeat(201) })
    expect(long.status).toBe(400)
    expect(((await long.json()) as { error: { message: string } }).error.message).toContain(
      'conversation.max_input_chars',
    )
    const junk = await post(sessionPath('room', 'say'), adminToken, { text: '你好', volume: 11 })
    expect(junk.status).toBe(400)
    expect(((await junk.json()) as { error: { message: string } }).error.message).toContain('volume')
  })

  it('a WebSocket say from a client that follows the session is heard by that client', async () => {
    const socket = await openSocket(everywhereToken)
    const from = socket.frames.length
    socket.send({ type: 'say', session: 'ws-room', text: '从套接字说一句。', emotion: '开心' })
    const frames = await socket.waitForTurn('ws-room', from)
    expect(frames.at(-1)).toMatchObject({ type: 'llm_done', trigger: 'say', text: '从套接字说一句。' })
  })
})

describe('event', () => {
  it('is stored, and the model sees it with the next input as a note', async () => {
    const created = await post(sessionPath('event-room', 'events'), adminToken, {
      text: '观众送出了一架火箭',
      respond: false,
    })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ id: expect.any(String) })
    const before = model.requests.length
    const chat = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${chatToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: 'event-room', text: '刚才发生了什么？' }),
    })
    await chat.text()
    const body = model.requests[before]!.body as { messages: { role: string; content: unknown }[] }
    const system = body.messages
      .filter((message) => message.role === 'system')
      .map((message) => String(message.content))
    expect(system.join('\n')).toContain('[事件] 观众送出了一架火箭')
    const users = body.messages
      .filter((message) => message.role === 'user')
      .map((message) => String(message.content))
    expect(users.join('\n')).not.toContain('火箭')
  })

  it('with respond: true is answered at once in the group, once', async () => {
    const before = model.requests.length
    const thanked = () => groupMessages().filter((message) => message.includes('收到，谢谢大家'))
    const sentBefore = thanked().length
    const created = await post(sessionPath(group, 'events'), adminToken, {
      text: '有新粉丝加入了群',
      respond: true,
    })
    expect(created.status).toBe(201)
    const { id, turn } = (await created.json()) as { id: string; turn: string }
    expect(id).toEqual(expect.any(String))
    expect(turn).toEqual(expect.any(String))
    await vi.waitFor(() => expect(model.requests.length).toBe(before + 1), { timeout: 15_000 })
    const body = model.requests[before]!.body as { messages: { role: string; content: unknown }[] }
    const asked = body.messages.filter((message) => message.role === 'user').at(-1)
    expect(String(asked?.content)).toContain('[事件] 有新粉丝加入了群')
    await vi.waitFor(() => expect(thanked()).toHaveLength(sentBefore + 1), { timeout: 15_000 })
    // Then a say: once it is in the group, the answer before it was sent exactly once.
    await post(sessionPath(group, 'say'), adminToken, { text: '欢迎新朋友。' })
    await vi.waitFor(
      () => expect(groupMessages().some((message) => message.includes('欢迎新朋友'))).toBe(true),
      {
        timeout: 15_000,
      },
    )
    expect(thanked()).toHaveLength(sentBefore + 1)
  })

  it('is refused to a chat client over HTTP and WebSocket', async () => {
    const refused = await post(sessionPath('room', 'events'), chatToken, { text: '下雨了', respond: true })
    expect(refused.status).toBe(403)
    const socket = await openSocket(chatToken)
    socket.send({ type: 'event', session: 'room', text: '下雨了' })
    expect(await socket.waitFor((frame) => frame.type === 'error')).toMatchObject({ code: 'forbidden' })
  })
})
