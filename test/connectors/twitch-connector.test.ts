import { afterEach, describe, expect, it, vi } from 'vitest'
import { twitchConnectorSchema } from '../../src/config/schema.js'
import { createTwitchConnector } from '../../src/connectors/twitch/create-twitch-connector.js'
import { parseIrcLine } from '../../src/connectors/twitch/parse-irc-line.js'
import { createLogger } from '../../src/shared/logger.js'
import { createFakeConnectorHost } from './fake-connector-host.js'
import { type FakeTwitchChat, startFakeTwitchChat } from './fake-twitch-chat.js'

const logger = createLogger({ level: 'silent' })
const backoff = { initialMs: 20, maxMs: 100 }
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startChat(): Promise<FakeTwitchChat> {
  const chat = await startFakeTwitchChat({ channel: 'nova_live', validToken: 'secret-chat-token' })
  cleanups.push(() => chat.close())
  return chat
}

function connect(chat: FakeTwitchChat, overrides: Record<string, unknown> = {}) {
  const host = createFakeConnectorHost()
  const config = twitchConnectorSchema.parse({
    name: 'stream',
    channel: '#Nova_Live',
    url: chat.url,
    ...overrides,
  })
  const connector = createTwitchConnector({ config, host, characterName: 'Nova', logger, backoff })
  cleanups.push(() => connector.close())
  return { host, connector }
}

describe('IRC lines with tags', () => {
  it('parses tags with escapes, the source nick, the command and the trailing parameter', () => {
    expect(
      parseIrcLine(
        '@badges=moderator/1,subscriber/12;display-name=Mia;msg=a\\sb\\:c\\\\ :mia!mia@mia.tmi.twitch.tv PRIVMSG #chan :hello there :)',
      ),
    ).toEqual({
      tags: { badges: 'moderator/1,subscriber/12', 'display-name': 'Mia', msg: 'a b;c\\' },
      source: 'mia',
      command: 'PRIVMSG',
      params: ['#chan', 'hello there :)'],
    })
    expect(parseIrcLine('PING :tmi.twitch.tv')).toEqual({
      tags: {},
      command: 'PING',
      params: ['tmi.twitch.tv'],
    })
    expect(parseIrcLine('@only-tags')).toBeUndefined()
  })
})

describe('Twitch chat connector', () => {
  it('reads anonymously and maps badges, bits, mentions and replies to audience messages', async () => {
    const chat = await startChat()
    const { host, connector } = connect(chat)
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(chat.joins[0]).toMatch(/^justinfan\d+$/)
    expect(chat.received).toContain('JOIN #nova_live')
    chat.say({
      login: 'streamer',
      tags: { id: 'a1', badges: 'broadcaster/1', 'display-name': 'Streamer', 'user-id': '1' },
      text: 'hi Nova',
    })
    chat.say({ login: 'mod', tags: { id: 'a2', badges: 'moderator/1', 'user-id': '2' }, text: 'welcome' })
    chat.say({
      login: 'fan',
      tags: { id: 'a3', badges: 'subscriber/3', bits: '100', 'user-id': '3', 'first-msg': '1' },
      text: 'Cheer100 love it',
    })
    chat.say({ login: 'lurker', tags: { id: 'a4', badges: '', 'user-id': '4' }, text: 'what game is this?' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(4))
    const messages = host.audienceCalls.map((call) => call.messages[0])
    expect(host.audienceCalls.every((call) => call.session === 'twitch:stream:nova_live')).toBe(true)
    expect(messages).toEqual([
      { id: 'a1', speaker: { id: '1', name: 'Streamer', role: 'owner' }, text: 'hi Nova' },
      { id: 'a2', speaker: { id: '2', name: 'mod', role: 'moderator' }, text: 'welcome' },
      {
        id: 'a3',
        speaker: { id: '3', name: 'fan', role: 'member' },
        text: 'Cheer100 love it',
        gift: { name: 'bits', value: 100 },
      },
      { id: 'a4', speaker: { id: '4', name: 'lurker', role: 'viewer' }, text: 'what game is this?' },
    ])
    expect(connector.status()).toMatchObject({ messages_in: 4, messages_out: 0 })
  })

  it('answers PING, follows RECONNECT without feeding a message twice, and never writes while read-only', async () => {
    const chat = await startChat()
    const { host, connector } = connect(chat)
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    chat.ping()
    await vi.waitFor(() => expect(chat.received).toContain('PONG :tmi.twitch.tv'))
    chat.say({ login: 'a', tags: { id: 'm1', 'user-id': '1' }, text: 'first' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    chat.requestReconnect()
    await vi.waitFor(() => expect(chat.joins).toHaveLength(2))
    await vi.waitFor(() => expect(chat.connectedCount()).toBe(1))
    chat.say({ login: 'a', tags: { id: 'm1', 'user-id': '1' }, text: 'first' })
    chat.say({ login: 'b', tags: { id: 'm2', 'user-id': '2' }, text: 'second' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(2))
    expect(host.audienceCalls.map((call) => call.messages[0]?.id)).toEqual(['m1', 'm2'])
    host.finishTurn('twitch:stream:nova_live', 'Hello chat!', ['m2'])
    expect(chat.received.filter((line) => line.includes('PRIVMSG'))).toEqual([])
  })

  it('with a token and post_replies writes replies into chat, as a reply, once, and reads @bot as a mention', async () => {
    const chat = await startChat()
    const { host, connector } = connect(chat, {
      username: 'NovaBot',
      oauth_token: 'oauth:secret-chat-token',
      post_replies: true,
    })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(chat.received).toContain('PASS oauth:secret-chat-token')
    expect(chat.received).toContain('NICK novabot')
    chat.say({
      login: 'viewer1',
      tags: { id: '6f1c2a3b-0000-4000-8000-000000000001', 'user-id': '9' },
      text: '@NovaBot are you real?',
    })
    chat.say({ login: 'novabot', tags: { id: 'own', 'user-id': '100' }, text: 'my own line' })
    chat.say({
      login: 'viewer2',
      tags: { id: 'r2', 'user-id': '10', 'reply-parent-user-login': 'novabot' },
      text: 'agreed',
    })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(2))
    expect(host.audienceCalls.map((call) => call.messages[0]?.text)).toEqual([
      '@Nova are you real?',
      '@Nova agreed',
    ])
    host.finishTurn('twitch:stream:nova_live', 'As real as a voice can be.', [
      '6f1c2a3b-0000-4000-8000-000000000001',
    ])
    await vi.waitFor(() =>
      expect(chat.received.filter((line) => line.includes('PRIVMSG'))).toEqual([
        '@reply-parent-msg-id=6f1c2a3b-0000-4000-8000-000000000001 PRIVMSG #nova_live :As real as a voice can be.',
      ]),
    )
    expect(connector.status().messages_out).toBe(1)
  })

  it('names a refused login without showing the token', async () => {
    const chat = await startChat()
    const { connector } = connect(chat, { username: 'novabot', oauth_token: 'wrong-token-xyz' })
    await vi.waitFor(() =>
      expect(connector.status().error).toMatch(/Twitch refused the login: Login authentication failed/),
    )
    expect(connector.status().state).toBe('failed')
    expect(JSON.stringify(connector.status())).not.toContain('wrong-token-xyz')
  })

  it('keeps up with a chat flood', async () => {
    const chat = await startChat()
    const { host, connector } = connect(chat)
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    for (let index = 0; index < 2000; index += 1)
      chat.say({
        login: `u${index % 50}`,
        tags: { id: `f${index}`, 'user-id': String(index % 50) },
        text: `message ${index}`,
      })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(2000), { timeout: 20_000 })
    expect(new Set(host.audienceCalls.map((call) => call.messages[0]?.id)).size).toBe(2000)
  })
})
