/**
 * Connectors in the running server, over the real engine, its audience selector and the mock model
 * server: a QQ group through a forward and a reverse OneBot link, their replies as reply + at
 * segments in the right group, the bot never answering itself, a link killed and restarted without
 * a message sent twice, and the other sessions unaffected while it is down.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import WebSocket from 'ws'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, type TestServer } from '../server/start-test-server.js'
import { openTestSocket } from '../server/websocket-client.js'
import { type FakeOnebot, startFakeOnebot } from './fake-onebot-implementation.js'
import { type FakeTwitchChat, startFakeTwitchChat } from './fake-twitch-chat.js'
import { watchProcessErrors } from './watch-process-errors.js'

let model: MockModelServer
let server: TestServer | undefined
const fakes: { close(): Promise<void> }[] = []

beforeAll(async () => {
  model = await startMockModelServer({ respond: () => ({ text: '好的，我在。' }) })
})
afterAll(async () => {
  await model.close()
})
afterEach(async () => {
  await server?.stop()
  server = undefined
  for (const fake of fakes.splice(0)) await fake.close()
  model.reset()
})

async function startWithConnectors(forward: FakeOnebot, audience: string[] = []) {
  server = await startServerOverModel(model.url, [
    'character:',
    '  name: 小雪',
    'audience:',
    '  reply: every',
    '  min_gap_ms: 0',
    ...audience,
    'connectors:',
    '  onebot:',
    '    - name: qq',
    `      url: ${forward.url}`,
    '      access_token: forward-secret',
    '      groups: [123]',
    '    - name: rev',
    '      listen: /onebot/rev',
    '      access_token: reverse-secret',
    '      groups: [456]',
  ])
  return server
}

const textOf = (call: { params: Record<string, unknown> }) =>
  (call.params.message as { type: string; data: { text?: string } }[])
    .filter((segment) => segment.type === 'text')
    .map((segment) => segment.data.text)
    .join('')

describe('connectors in the server', () => {
  it('answers each group through its own link, as a reply with an at, and never itself', async () => {
    const forward = await startFakeOnebot({ accessToken: 'forward-secret' })
    fakes.push(forward)
    const running = await startWithConnectors(forward)
    const reverse = await startFakeOnebot({
      accessToken: 'reverse-secret',
      reverseUrl: `${running.url.replace('http', 'ws')}/onebot/rev`,
    })
    fakes.push(reverse)
    await vi.waitFor(async () => {
      const answer = await fetch(`${running.url}/api/connectors`).then((response) => response.json())
      expect(answer.connectors.map((connector: { state: string }) => connector.state)).toEqual([
        'ready',
        'ready',
      ])
    })

    const asked = forward.sendGroupMessage({
      groupId: 123,
      userId: 42,
      card: '阿明',
      message: [
        { type: 'at', data: { qq: String(forward.selfId) } },
        { type: 'text', data: { text: ' 你在吗？' } },
      ],
    })
    forward.sendGroupMessage({
      groupId: 123,
      userId: forward.selfId,
      message: [{ type: 'text', data: { text: '我自己' } }],
    })
    await vi.waitFor(() => expect(forward.calls).toHaveLength(1), { timeout: 15_000 })
    expect(forward.calls[0]).toMatchObject({
      action: 'send_group_msg',
      params: {
        group_id: 123,
        message: [
          { type: 'reply', data: { id: String(asked) } },
          { type: 'at', data: { qq: '42' } },
          { type: 'text', data: { text: ' 好的，我在。' } },
        ],
      },
    })
    const prompt = JSON.stringify(model.requests.at(-1)?.body)
    expect(prompt).toContain('阿明')
    expect(prompt).toContain('你在吗')
    expect(prompt).not.toContain('我自己')

    reverse.sendGroupMessage({
      groupId: 456,
      userId: 7,
      message: [{ type: 'text', data: { text: '晚上好' } }],
    })
    await vi.waitFor(() => expect(reverse.calls).toHaveLength(1), { timeout: 15_000 })
    expect(reverse.calls[0]?.params.group_id).toBe(456)
    expect(forward.calls).toHaveLength(1)

    const status = await fetch(`${running.url}/api/connectors`).then((response) => response.json())
    expect(status.connectors[0]).toMatchObject({
      name: 'qq',
      kind: 'onebot',
      character: '',
      state: 'ready',
      sessions: ['onebot:qq:group:123'],
      messages_in: 1,
      messages_out: 1,
    })
    expect(JSON.stringify(status)).not.toContain('secret')
  })

  it('reads on past events it cannot read, on both links, and counts them in GET /api/connectors', async () => {
    const watched = watchProcessErrors()
    try {
      const forward = await startFakeOnebot({ accessToken: 'forward-secret' })
      fakes.push(forward)
      server = await startServerOverModel(model.url, [
        'character:',
        '  name: 小雪',
        'connectors:',
        '  onebot:',
        '    - name: qq',
        `      url: ${forward.url}`,
        '      access_token: forward-secret',
        '      groups: [123]',
        '      private: true',
        '    - name: rev',
        '      listen: /onebot/rev',
        '      access_token: reverse-secret',
        '      groups: [456]',
        '      private: true',
      ])
      const running = server
      const reverse = await startFakeOnebot({
        accessToken: 'reverse-secret',
        reverseUrl: `${running.url.replace('http', 'ws')}/onebot/rev`,
      })
      fakes.push(reverse)
      const readStatus = async () =>
        (await fetch(`${running.url}/api/connectors`).then((response) => response.json())) as {
          connectors: { state: string; messages_in: number; malformed?: Record<string, number> }[]
        }
      await vi.waitFor(async () =>
        expect((await readStatus()).connectors.map((connector) => connector.state)).toEqual([
          'ready',
          'ready',
        ]),
      )
      const event = (fields: Record<string, unknown>) =>
        JSON.stringify({
          time: 1,
          self_id: 10001,
          post_type: 'message',
          message_type: 'group',
          message_id: 900,
          user_id: 42,
          sender: { nickname: 'a' },
          ...fields,
        })
      forward.sendRaw(event({ group_id: 123, message: [null] }))
      forward.sendRaw(event({ group_id: 123, message_id: { toString: 1 }, message: 'hi' }))
      forward.sendRaw(event({ message_type: 'private', message_id: 901, message: [null] }))
      reverse.sendRaw(event({ message_type: 'private', message_id: 902, message: [null] }))
      reverse.sendRaw(event({ group_id: 456, message_id: 903, message: [null] }))
      forward.sendGroupMessage({ groupId: 123, userId: 7, message: '还在吗' })
      reverse.sendGroupMessage({ groupId: 456, userId: 7, message: '还在吗' })
      await vi.waitFor(async () =>
        expect((await readStatus()).connectors.map((connector) => connector.messages_in)).toEqual([1, 1]),
      )
      const status = await readStatus()
      expect(status.connectors.map((connector) => connector.malformed)).toEqual([
        { no_segments: 2, no_message_id: 1 },
        { no_segments: 2 },
      ])
      expect(status.connectors.map((connector) => connector.state)).toEqual(['ready', 'ready'])
      expect(watched.errors).toEqual([])
    } finally {
      watched.stop()
    }
  })

  it('refuses a reverse connection without the token or the Universal role', async () => {
    const forward = await startFakeOnebot({ accessToken: 'forward-secret' })
    fakes.push(forward)
    const running = await startWithConnectors(forward)
    const url = `${running.url.replace('http', 'ws')}/onebot/rev`
    const wrong = await refusedUpgrade(url, {
      'X-Client-Role': 'Universal',
      'X-Self-ID': '1',
      Authorization: 'Bearer nope',
    })
    expect(wrong).toBe(401)
    const missing = await refusedUpgrade(url, { 'X-Client-Role': 'Universal', 'X-Self-ID': '1' })
    expect(missing).toBe(401)
    const role = await refusedUpgrade(url, {
      'X-Client-Role': 'Event',
      'X-Self-ID': '1',
      Authorization: 'Bearer reverse-secret',
    })
    expect(role).toBe(400)
    // The upgrade's answer carries no body: the server's log says why.
    const reasons = running.logLines
      .filter((line) => line.includes('reverse OneBot connection refused'))
      .join('\n')
    expect(reasons).toContain('the access token is not valid')
    expect(reasons).toContain('an access token is required')
    expect(reasons).toContain('X-Client-Role must be Universal')
    expect(reasons).not.toContain('nope')
    // The right token by query string, as OneBot allows, is accepted.
    const accepted = new WebSocket(`${url}?access_token=reverse-secret`, {
      headers: { 'X-Client-Role': 'Universal', 'X-Self-ID': '1' },
    })
    await new Promise<void>((resolve, reject) => {
      accepted.once('open', () => resolve())
      accepted.once('error', reject)
    })
    accepted.close()
  })

  it('keeps other sessions going while a link is down, and sends nothing twice after it is back', async () => {
    const forward = await startFakeOnebot({ accessToken: 'forward-secret' })
    fakes.push(forward)
    const running = await startWithConnectors(forward)
    await vi.waitFor(() => expect(forward.connectedCount()).toBe(1))
    forward.sendGroupMessage({
      groupId: 123,
      userId: 1,
      message: [{ type: 'text', data: { text: '第一条' } }],
    })
    await vi.waitFor(() => expect(forward.calls).toHaveLength(1), { timeout: 15_000 })

    await forward.kill()
    await vi.waitFor(async () => {
      const answer = await fetch(`${running.url}/api/connectors`).then((response) => response.json())
      expect(answer.connectors[0]).toMatchObject({ state: 'failed' })
    })
    // A chat client elsewhere is served as usual while the link is down.
    const client = await openTestSocket(`${running.url}/ws`)
    client.send({ type: 'user_input', session: 'elsewhere', text: '你好' })
    const events = await client.waitForTurn('elsewhere')
    expect(events.at(-1)).toMatchObject({ type: 'llm_done', text: '好的，我在。' })
    await client.close()

    await forward.restart()
    await vi.waitFor(() => expect(forward.connectedCount()).toBe(1), { timeout: 15_000 })
    forward.sendGroupMessage({
      groupId: 123,
      userId: 2,
      message: [{ type: 'text', data: { text: '第二条' } }],
    })
    await vi.waitFor(() => expect(forward.calls).toHaveLength(2), { timeout: 15_000 })
    expect(forward.calls.map(textOf)).toEqual([' 好的，我在。', ' 好的，我在。'])
  })
  it('keeps the selector rules through the connector: blocked words and duplicates', async () => {
    const forward = await startFakeOnebot({ accessToken: 'forward-secret' })
    fakes.push(forward)
    await startWithConnectors(forward, ['  blocked_words: [代刷]', '  dedupe_window_ms: 60000'])
    await vi.waitFor(() => expect(forward.connectedCount()).toBe(1))
    forward.sendGroupMessage({
      groupId: 123,
      userId: 5,
      message: [{ type: 'text', data: { text: '便宜代刷加我' } }],
    })
    forward.sendGroupMessage({
      groupId: 123,
      userId: 6,
      message: [{ type: 'text', data: { text: '有人吗' } }],
    })
    forward.sendGroupMessage({
      groupId: 123,
      userId: 6,
      message: [{ type: 'text', data: { text: '有人吗' } }],
    })
    forward.sendGroupMessage({ groupId: 123, userId: 7, message: [{ type: 'text', data: { text: '晚安' } }] })
    const answered = () =>
      forward.calls.flatMap((call) =>
        (call.params.message as { type: string; data: { qq?: string } }[])
          .filter((segment) => segment.type === 'at')
          .map((segment) => segment.data.qq),
      )
    await vi.waitFor(() => expect(answered()).toContain('7'), { timeout: 15_000 })
    const prompts = model.requests.map((request) => JSON.stringify(request.body))
    expect(prompts.join('\n')).not.toContain('代刷')
    // The repeated line reaches the model once: no request holds it twice (history + input).
    for (const prompt of prompts) expect(prompt.split('有人吗').length - 1).toBeLessThanOrEqual(1)
    expect(prompts.join('\n')).toContain('有人吗')
    expect(answered()).not.toContain('5')
    expect(answered().filter((qq) => qq === '6')).toHaveLength(1)
  })

  it('reads a Twitch channel and posts the reply once, as a reply to the message', async () => {
    const chat: FakeTwitchChat = await startFakeTwitchChat({ channel: 'nova_live', validToken: 'chat-token' })
    fakes.push(chat)
    server = await startServerOverModel(model.url, [
      'character:',
      '  name: Nova',
      'audience:',
      '  reply: mentions',
      '  min_gap_ms: 0',
      'connectors:',
      '  twitch:',
      '    - name: stream',
      '      channel: nova_live',
      `      url: ${chat.url}`,
      '      username: novabot',
      '      oauth_token: chat-token',
      '      post_replies: true',
    ])
    await vi.waitFor(() => expect(chat.connectedCount()).toBe(1))
    chat.say({ login: 'viewer', tags: { id: 'aaaaaaaa-1111', 'user-id': '1' }, text: 'nice stream' })
    chat.say({
      login: 'fan',
      tags: { id: 'bbbbbbbb-2222', 'user-id': '2', badges: 'subscriber/1' },
      text: '@novabot how are you?',
    })
    await vi.waitFor(() => expect(chat.received.filter((line) => line.includes('PRIVMSG'))).toHaveLength(1), {
      timeout: 15_000,
    })
    expect(chat.received.find((line) => line.includes('PRIVMSG'))).toBe(
      '@reply-parent-msg-id=bbbbbbbb-2222 PRIVMSG #nova_live :好的，我在。',
    )
    const prompt = JSON.stringify(model.requests.at(-1)?.body)
    expect(prompt).toContain('@Nova how are you?')
    const status = await fetch(`${server.url}/api/connectors`).then((response) => response.json())
    expect(status.connectors[0]).toMatchObject({
      kind: 'twitch',
      state: 'ready',
      messages_in: 2,
      messages_out: 1,
    })
    expect(JSON.stringify(status)).not.toContain('chat-token')
  })
})

/** Dials a reverse path and returns the status of the refused upgrade. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.once('open', () => reject(new Error('the upgrade was accepted')))
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0)
      socket.terminate()
    })
    socket.once('error', () => {})
  })
}
