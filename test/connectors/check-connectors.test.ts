import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { parseConfig } from '../../src/characters/load-config.js'
import { checkConnectors } from '../../src/connectors/check-connectors.js'
import { startFakeBilibiliLive } from './fake-bilibili-live.js'
import { startFakeOnebot } from './fake-onebot-implementation.js'
import { startFakeTwitchChat } from './fake-twitch-chat.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe("charpipe doctor's connector checks", () => {
  it("reads no frame past the running connectors' 4 MiB bound, and names why the check ended", async () => {
    // A platform that answers every connection with a 5 MiB frame and then waits.
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    server.on('connection', (socket) => socket.send('x'.repeat(5 * 1024 * 1024)))
    await new Promise((resolve) => server.once('listening', resolve))
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())))
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`
    const { config } = parseConfig({
      connectors: {
        onebot: [{ name: 'qq', url, groups: [1] }],
        twitch: [{ name: 'stream', channel: 'nova_live', url }],
      },
    })
    const checks = await checkConnectors(config, 60_000)
    expect(checks).toEqual([
      {
        name: 'OneBot qq',
        ok: false,
        detail: expect.stringMatching(/the connection ended: Max payload size exceeded/),
      },
      {
        name: 'Twitch stream',
        ok: false,
        detail: expect.stringMatching(/the connection ended: Max payload size exceeded/),
      },
    ])
  })

  it('logs in to each connector, names a refused token without showing it, and leaves reverse links to the server', async () => {
    const onebot = await startFakeOnebot({ accessToken: 'right-token' })
    const chat = await startFakeTwitchChat({ channel: 'nova_live', validToken: 'chat-token' })
    cleanups.push(
      () => onebot.close(),
      () => chat.close(),
    )
    const { config } = parseConfig({
      connectors: {
        onebot: [
          { name: 'qq', url: onebot.url, access_token: 'right-token', groups: [1] },
          { name: 'wrong', url: onebot.url, access_token: 'wrong-token-456', groups: [1] },
          { name: 'reverse', listen: '/onebot/qq', access_token: 'x', groups: [1] },
        ],
        twitch: [
          { name: 'stream', channel: 'nova_live', url: chat.url },
          {
            name: 'bot',
            channel: 'nova_live',
            url: chat.url,
            username: 'novabot',
            oauth_token: 'bad-chat-token',
          },
        ],
      },
    })
    const checks = await checkConnectors(config, 5000)
    expect(checks.map(({ name, ok }) => [name, ok])).toEqual([
      ['OneBot qq', true],
      ['OneBot wrong', false],
      ['OneBot reverse', true],
      ['Twitch stream', true],
      ['Twitch bot', false],
    ])
    expect(checks[0]?.detail).toBe(`${onebot.url} answers: logged in as fake bot (${onebot.selfId})`)
    expect(checks[1]?.detail).toMatch(/HTTP 401/)
    expect(checks[2]?.detail).toMatch(/GET \/api\/connectors/)
    expect(checks[3]?.detail).toBe('joined #nova_live read-only (anonymous)')
    expect(checks[4]?.detail).toMatch(/the login was refused/)
    expect(JSON.stringify(checks)).not.toMatch(/wrong-token-456|bad-chat-token/)
  })

  it('looks a Bilibili room up, logs in to its danmaku, and names an offline room, a refused login and a missing room', async () => {
    const room = await startFakeBilibiliLive({ roomId: 21452505, ownerUid: 1, csrf: 'csrf-value-xyz' })
    cleanups.push(() => room.close())
    const cookie = 'SESSDATA=sess-value-xyz; bili_jct=csrf-value-xyz; DedeUserID=555'
    const entry = (name: string, overrides: Record<string, unknown> = {}) => ({
      name,
      room_id: 21452505,
      url: room.url,
      api_url: room.apiUrl,
      ...overrides,
    })
    const { config } = parseConfig({
      connectors: {
        bilibili: [entry('guest'), entry('account', { cookie }), entry('missing', { room_id: 7 })],
      },
    })
    room.live = false
    const checks = await checkConnectors(config, 5000)
    expect(checks.map(({ name, ok }) => [name, ok])).toEqual([
      ['Bilibili guest', true],
      ['Bilibili account', true],
      ['Bilibili missing', false],
    ])
    expect(checks[0]?.detail).toBe(
      'room 21452505 is offline (not streaming now); danmaku read anonymously (names masked)',
    )
    expect(checks[1]?.detail).toBe('room 21452505 is offline (not streaming now); danmaku read as uid 555')
    expect(checks[2]?.detail).toMatch(/room 7 could not be looked up \(code 60004/)
    room.refuseLogins = 1
    const [refused] = await checkConnectors(
      parseConfig({ connectors: { bilibili: [entry('account', { cookie })] } }).config,
      5000,
    )
    expect(refused).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/refused the login \(code -101\)/),
    })
    expect(JSON.stringify([...checks, refused])).not.toMatch(/sess-value-xyz|csrf-value-xyz/)
  })
})
