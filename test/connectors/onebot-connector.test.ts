import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { onebotConnectorSchema } from '../../src/config/schema.js'
import type { Connector } from '../../src/connectors/index.js'
import { createOnebotConnector } from '../../src/connectors/onebot/create-onebot-connector.js'
import type { Language } from '../../src/shared/language/index.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeConnectorHost } from './fake-connector-host.js'
import { type FakeOnebot, startFakeOnebot } from './fake-onebot-implementation.js'

const logger = createLogger({ level: 'silent' })
const backoff = { initialMs: 20, maxMs: 100 }
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A logger whose lines the test reads. */
function createLineLogger(lines: string[]) {
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      callback()
    },
  })
  return createLogger({ level: 'warn', destination })
}

async function connect(
  fake: FakeOnebot,
  overrides: Record<string, unknown> = {},
  character: { characterName?: string; language?: Language } = {},
  logLines?: string[],
) {
  const host = createFakeConnectorHost()
  const config = onebotConnectorSchema.parse({
    name: 'qq',
    url: fake.url,
    access_token: 'group-token',
    groups: [123],
    ...overrides,
  })
  const connector: Connector = createOnebotConnector({
    config,
    host,
    characterName: '小雪',
    ...character,
    logger: logLines ? createLineLogger(logLines) : logger,
    backoff,
  })
  cleanups.push(() => connector.close())
  await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
  await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
  return { host, connector }
}

async function startFake(options: Parameters<typeof startFakeOnebot>[0] = {}) {
  const fake = await startFakeOnebot({ accessToken: 'group-token', ...options })
  cleanups.push(() => fake.close())
  return fake
}

describe('OneBot v11 connector, forward WebSocket', () => {
  it('hands group messages to the session selector with speaker, role, mentions and images', async () => {
    const fake = await startFake()
    const { host } = await connect(fake)
    const id = fake.sendGroupMessage({
      groupId: 123,
      userId: 42,
      card: '阿明',
      role: 'admin',
      message: [
        { type: 'at', data: { qq: String(fake.selfId) } },
        { type: 'text', data: { text: ' 今天吃什么？' } },
        { type: 'image', data: { file: 'a.jpg', url: 'https://example.com/a.jpg' } },
        { type: 'face', data: { id: '14' } },
      ],
    })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]).toEqual({
      session: 'onebot:qq:group:123',
      character: undefined,
      messages: [
        {
          id: String(id),
          speaker: { id: '42', name: '阿明', role: 'moderator' },
          text: '@小雪 今天吃什么？[表情]',
          images: ['https://example.com/a.jpg'],
        },
      ],
    })
  })

  it("writes images it cannot pass on, emoji and an at of everyone in the character's language", async () => {
    const message = [
      { type: 'at', data: { qq: 'all' } },
      { type: 'text', data: { text: ' look ' } },
      { type: 'image', data: { file: 'local.jpg' } },
      { type: 'face', data: { id: '14' } },
    ]
    const english = await startFake()
    const { host: englishHost } = await connect(english, {}, { characterName: 'Snow', language: 'en' })
    english.sendGroupMessage({ groupId: 123, userId: 42, message })
    await vi.waitFor(() => expect(englishHost.audienceCalls).toHaveLength(1))
    expect(englishHost.audienceCalls[0]?.messages[0]?.text).toBe('@everyone look [Image][Emoji]')

    const chinese = await startFake()
    const { host: chineseHost } = await connect(chinese)
    chinese.sendGroupMessage({ groupId: 123, userId: 42, message })
    await vi.waitFor(() => expect(chineseHost.audienceCalls).toHaveLength(1))
    expect(chineseHost.audienceCalls[0]?.messages[0]?.text).toBe('@全体成员 look [图片][表情]')
  })

  it('reads CQ-code string messages, and ignores other groups, its own messages and repeats', async () => {
    const fake = await startFake()
    const { host } = await connect(fake)
    fake.sendGroupMessage({ groupId: 999, userId: 42, message: 'not our group' })
    fake.sendGroupMessage({ groupId: 123, userId: fake.selfId, message: 'the bot itself' })
    fake.sendGroupMessage({
      groupId: 123,
      userId: 7,
      message: `[CQ:at,qq=${fake.selfId}] a&#91;b&#93; &amp; c`,
      role: 'owner',
    })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.messages[0]).toMatchObject({
      text: '@小雪 a[b] & c',
      speaker: { role: 'owner' },
    })
    // The same event delivered again (an implementation replaying after a reconnect) is not fed twice.
    const frame = {
      time: 1,
      self_id: fake.selfId,
      post_type: 'message',
      message_type: 'group',
      message_id: 555,
      group_id: 123,
      user_id: 8,
      message: [{ type: 'text', data: { text: 'once' } }],
      sender: { nickname: 'x', role: 'member' },
    }
    fake.sendRaw(JSON.stringify(frame))
    fake.sendRaw(JSON.stringify(frame))
    fake.sendRaw('not json')
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(2))
    fake.sendGroupMessage({ groupId: 123, userId: 9, message: 'after' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(3))
    expect(host.audienceCalls.map((call) => call.messages[0]?.text)).toEqual([
      '@小雪 a[b] & c',
      'once',
      'after',
    ])
  })

  it('answers an audience turn as a reply to the message answered, with an at of each speaker, split at sentences', async () => {
    const fake = await startFake()
    const { host, connector } = await connect(fake, { max_message_chars: 20 })
    const first = fake.sendGroupMessage({
      groupId: 123,
      userId: 42,
      message: [{ type: 'text', data: { text: '你好' } }],
    })
    const second = fake.sendGroupMessage({
      groupId: 123,
      userId: 43,
      message: [{ type: 'text', data: { text: '在吗' } }],
    })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(2))
    host.finishTurn('onebot:qq:group:123', '你们好呀！今天天气真不错，我们一起出去走走吧。好不好？', [
      String(first),
      String(second),
    ])
    await vi.waitFor(() => expect(fake.calls).toHaveLength(3))
    expect(fake.calls[0]).toMatchObject({
      action: 'send_group_msg',
      params: {
        group_id: 123,
        message: [
          { type: 'reply', data: { id: String(first) } },
          { type: 'at', data: { qq: '42' } },
          { type: 'at', data: { qq: '43' } },
          { type: 'text', data: { text: ' 你们好呀！' } },
        ],
      },
    })
    expect(fake.calls.slice(1).map((call) => call.params.message)).toEqual([
      [{ type: 'text', data: { text: '今天天气真不错，我们一起出去走走吧。' } }],
      [{ type: 'text', data: { text: '好不好？' } }],
    ])
    expect(connector.status()).toMatchObject({
      messages_in: 2,
      messages_out: 3,
      sessions: ['onebot:qq:group:123'],
    })
    // A reply to the bot's own message counts as a mention.
    fake.sendGroupMessage({
      groupId: 123,
      userId: 44,
      message: [
        { type: 'reply', data: { id: String(fake.sentIds[0]) } },
        { type: 'text', data: { text: '真的吗' } },
      ],
    })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(3))
    expect(host.audienceCalls[2]?.messages[0]?.text).toBe('@小雪 真的吗')
  })

  it('says why it is down, reconnects with backoff, and drops (and logs) a reply made while down', async () => {
    const fake = await startFake()
    const lines: string[] = []
    const { host, connector } = await connect(fake, {}, {}, lines)
    await fake.kill()
    await vi.waitFor(() => expect(connector.status().state).toBe('failed'))
    expect(connector.status().error).toMatch(/connection refused|closed/)
    host.finishTurn('onebot:qq:group:123', '我回来了')
    expect(lines.some((line) => line.includes('reply dropped: the OneBot link is down'))).toBe(true)
    await fake.restart()
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
    // Once the link is back, a message there and its reply go through; the old reply never does.
    fake.sendGroupMessage({ groupId: 123, userId: 1, message: 'ping' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    host.finishTurn('onebot:qq:group:123', 'pong')
    await vi.waitFor(() => expect(fake.calls).toHaveLength(1))
    expect(fake.calls[0]?.params.message).toEqual([{ type: 'text', data: { text: 'pong' } }])
    expect(JSON.stringify(fake.calls)).not.toContain('我回来了')
  })

  it('names a refused access token, and never shows the token', async () => {
    const fake = await startFake()
    const host = createFakeConnectorHost()
    const config = onebotConnectorSchema.parse({
      name: 'qq',
      url: fake.url,
      access_token: 'wrong-token-123',
      groups: [1],
    })
    const connector = createOnebotConnector({ config, host, characterName: 'x', logger, backoff })
    cleanups.push(() => connector.close())
    await vi.waitFor(() => expect(connector.status().state).toBe('failed'))
    expect(connector.status().error).toBe('the server answered the WebSocket upgrade with HTTP 401')
    expect(JSON.stringify(connector.status())).not.toContain('wrong-token-123')
  })

  it('runs private chats as 1:1 turns when enabled and answers with send_private_msg', async () => {
    const fake = await startFake()
    const { host, connector } = await connect(fake, { private: true })
    fake.sendPrivateMessage({ userId: 77, text: '晚上好', nickname: '小红' })
    await vi.waitFor(() => expect(fake.calls).toHaveLength(1))
    expect(host.runCalls[0]).toMatchObject({
      session: 'onebot:qq:private:77',
      text: '晚上好',
      speaker: { id: '77', name: '小红' },
    })
    expect(fake.calls[0]).toMatchObject({
      action: 'send_private_msg',
      params: { user_id: 77, message: [{ type: 'text', data: { text: 'reply to 晚上好' } }] },
    })
    expect(connector.status().sessions).toContain('onebot:qq:private:77')
  })

  it('ignores private chats when they are off', async () => {
    const fake = await startFake()
    const { host } = await connect(fake)
    fake.sendPrivateMessage({ userId: 77, text: 'hi' })
    fake.sendGroupMessage({ groupId: 123, userId: 1, message: 'marker' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.runCalls).toHaveLength(0)
  })
})
