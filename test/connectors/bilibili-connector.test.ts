import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bilibiliConnectorSchema } from '../../src/config/schema.js'
import {
  type CreateBilibiliConnectorOptions,
  createBilibiliConnector,
  danmakuHeartbeatMs,
} from '../../src/connectors/bilibili/create-bilibili-connector.js'
import { createLogger } from '../../src/shared/logger.js'
import { createManualClock } from '../../src/testing/index.js'
import {
  danmakuCommand,
  giftCommand,
  interactCommand,
  interactV2Command,
  liveCommand,
  preparingCommand,
  superChatCommand,
} from './__fixtures__/bilibili-commands.js'
import { type FakeBilibiliLive, startFakeBilibiliLive } from './fake-bilibili-live.js'
import { createFakeConnectorHost, type FakeConnectorHost } from './fake-connector-host.js'

const backoff = { initialMs: 20, maxMs: 100 }
const session = 'bilibili:live:21452505'
const cookie = 'SESSDATA=sess-secret-value; bili_jct=csrf-secret-value; DedeUserID=555; buvid3=buvid-abc'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.useRealTimers()
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startRoom(): Promise<FakeBilibiliLive> {
  const room = await startFakeBilibiliLive({
    roomId: 21452505,
    shortId: 6,
    ownerUid: 1000,
    csrf: 'csrf-secret-value',
  })
  cleanups.push(() => room.close())
  return room
}

function connect(
  room: FakeBilibiliLive,
  overrides: Record<string, unknown> = {},
  host?: FakeConnectorHost,
  options: Partial<CreateBilibiliConnectorOptions> = {},
) {
  const logLines: string[] = []
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    destination: new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk))
        done()
      },
    }),
  })
  const fakeHost = host ?? createFakeConnectorHost()
  const config = bilibiliConnectorSchema.parse({
    name: 'live',
    room_id: 21452505,
    url: room.url,
    api_url: room.apiUrl,
    ...overrides,
  })
  const connector = createBilibiliConnector({
    config,
    host: fakeHost,
    characterName: '小雪',
    logger,
    backoff,
    sendIntervalMs: 5,
    ...options,
  })
  cleanups.push(() => connector.close())
  return { host: fakeHost, connector, logLines }
}

const texts = (host: FakeConnectorHost) => host.audienceCalls.map((call) => call.messages[0]?.text)

describe('Bilibili live connector', () => {
  it('reads a room anonymously: plain, zlib and brotli frames of several commands each', async () => {
    const room = await startRoom()
    const { host, connector } = connect(room, { room_id: 6 })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    // The short id was looked up; the guest login carries the real room id and no uid.
    expect(room.auths[0]).toMatchObject({ roomid: 21452505, uid: 0, protover: 3, key: 'token-1' })
    room.send(
      [
        danmakuCommand({ uid: 0, name: '张***', uidHash: 'aa', idStr: '1', text: '晚上好' }),
        danmakuCommand({ uid: 0, name: '李**', uidHash: 'bb', idStr: '2', text: '来了' }),
        interactCommand(1),
      ],
      0,
    )
    room.send(
      [
        giftCommand({ tid: 'g1', price: 1000, num: 2 }),
        interactCommand(2),
        interactV2Command(1),
        // A protobuf cut short costs only itself.
        { cmd: 'INTERACT_WORD_V2', data: { pb: 'CLq62owBEgz=' } },
        interactV2Command(2),
      ],
      2,
    )
    room.send(
      [superChatCommand({ id: 1, price: 30, text: '唱首歌' }), giftCommand({ coinType: 'silver' })],
      3,
    )
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(4))
    expect(host.audienceCalls.every((call) => call.session === 'bilibili:live:6')).toBe(true)
    expect(texts(host)).toEqual(['晚上好', '来了', '投喂 小花花 ×2', '唱首歌'])
    expect(host.audienceCalls.map((call) => call.messages[0]?.gift)).toEqual([
      undefined,
      undefined,
      { name: '小花花', value: 2 },
      { name: '醒目留言', value: 30 },
    ])
    expect(connector.status()).toMatchObject({
      kind: 'bilibili',
      sessions: ['bilibili:live:6'],
      messages_in: 4,
      counted: { entered: 2, followed: 2, silver_gift: 1 },
    })
  })

  it('logs in with the cookie’s uid and a token, and beats every 30 s', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const room = await startRoom()
    const { connector, logLines } = connect(room, { cookie })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(room.auths[0]).toEqual({
      uid: 555,
      roomid: 21452505,
      protover: 3,
      platform: 'web',
      type: 2,
      buvid: 'buvid-abc',
      key: 'token-1',
    })
    // One beat right after the login, then one per interval.
    await vi.waitFor(() => expect(room.heartbeats).toBe(1))
    vi.advanceTimersByTime(danmakuHeartbeatMs)
    await vi.waitFor(() => expect(room.heartbeats).toBe(2))
    vi.advanceTimersByTime(danmakuHeartbeatMs * 2)
    await vi.waitFor(() => expect(room.heartbeats).toBe(4))
    expect(connector.status().state).toBe('ready')
    const everything = JSON.stringify(connector.status()) + logLines.join('')
    expect(everything).not.toContain('sess-secret-value')
    expect(everything).not.toContain('csrf-secret-value')
  })

  it('comes back after the server is killed with a fresh token, and feeds no message twice', async () => {
    const room = await startRoom()
    const { host, connector } = connect(room, { cookie })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    const first = danmakuCommand({ uid: 9, name: '阿明', idStr: 'm1', text: '第一条' })
    room.send([first])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    await room.kill()
    await vi.waitFor(() => expect(connector.status().state).toBe('failed'))
    expect(connector.status().error).toMatch(/could not be reached|connection/)
    await room.restart()
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'), { timeout: 15_000 })
    const lastAuth = room.auths.at(-1)
    expect(lastAuth?.key).toBe(room.tokens.at(-1))
    expect(lastAuth?.key).not.toBe('token-1')
    room.send([first, danmakuCommand({ uid: 10, name: '阿强', idStr: 'm2', text: '第二条' })])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(2))
    expect(texts(host)).toEqual(['第一条', '第二条'])
  })

  it('signs getDanmuInfo with the keys nav names, keeps them for hours, and asks again when refused', async () => {
    const room = await startRoom()
    const clock = createManualClock(Date.parse('2026-11-27T12:00:00Z'))
    const { connector } = connect(room, { cookie }, undefined, { clock })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(room.navRequests).toBe(1)
    expect(room.refusedSignatures).toBe(0)
    // wts is the injected clock's time in seconds.
    expect(room.signedAt).toEqual([Date.parse('2026-11-27T12:00:00Z') / 1000])

    // A reconnect within the hour signs with the kept keys.
    await room.kill()
    await room.restart()
    await vi.waitFor(() => expect(room.tokens).toHaveLength(2))
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(room.navRequests).toBe(1)

    // Bilibili changed its keys: the signature is refused once, the keys fetched again, the token given.
    room.wbiKeys = { imgKey: 'a'.repeat(16) + 'b'.repeat(16), subKey: '0123456789abcdef'.repeat(2) }
    await room.kill()
    await room.restart()
    await vi.waitFor(() => expect(room.tokens).toHaveLength(3))
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(room.refusedSignatures).toBe(1)
    expect(room.navRequests).toBe(2)
    expect(room.auths.at(-1)?.key).toBe('token-3')

    // Keys older than six hours are fetched again before they are used.
    await clock.advance(6 * 60 * 60 * 1000 + 1)
    await room.kill()
    await room.restart()
    await vi.waitFor(() => expect(room.tokens).toHaveLength(4))
    expect(room.navRequests).toBe(3)
    expect(room.refusedSignatures).toBe(1)
  })

  it('drops a login the server refuses and tries again with a new token', async () => {
    const room = await startRoom()
    room.refuseLogins = 2
    const { connector } = connect(room, { cookie })
    await vi.waitFor(() => expect(connector.status().error).toMatch(/refused the login \(code -101\)/))
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'), { timeout: 15_000 })
    expect(room.auths.map((auth) => auth.key)).toEqual(['token-1', 'token-2', 'token-3'])
  })

  it('names a room that does not exist and keeps trying, with backoff', async () => {
    const room = await startRoom()
    // A room id the server does not serve: the lookup fails, by name, and is retried with backoff.
    const { connector } = connect(room, { room_id: 999 })
    await vi.waitFor(() =>
      expect(connector.status().error).toMatch(/room 999 could not be looked up \(code 60004/),
    )
    expect(connector.status().state).toBe('failed')
    expect(room.tokens).toEqual([])
  })

  it('posts a reply as danmaku cut at sentence ends, in order, each once', async () => {
    const room = await startRoom()
    const { host, connector } = connect(room, { cookie, post_replies: true, max_message_chars: 10 })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    host.finishTurn(session, '谢谢你的醒目留言！今天我们唱三首歌。先来第一首吧', ['sc:1'])
    await vi.waitFor(() => expect(room.sent).toHaveLength(3))
    expect(room.sent).toEqual(['谢谢你的醒目留言！', '今天我们唱三首歌。', '先来第一首吧'])
    expect(room.sendRequests.at(-1)?.get('roomid')).toBe('21452505')
    expect(room.sendRequests.at(-1)?.get('csrf')).toBe('csrf-secret-value')
    // The fake records a danmaku before its answer reaches the connector.
    await vi.waitFor(() => expect(connector.status().messages_out).toBe(3))
    // Another session's turn is not this room's.
    host.finishTurn('bilibili:other:1', 'never', ['x'])
    await vi.waitFor(() => expect(connector.status().messages_out).toBe(3))
    expect(room.sent).toHaveLength(3)
  })

  it('names a ban when Bilibili refuses the replies, and an offline room, in the status', async () => {
    const room = await startRoom()
    room.live = false
    const { host, connector } = connect(room, { cookie, post_replies: true })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(connector.status().notice).toMatch(/offline/)
    room.send([liveCommand])
    await vi.waitFor(() => expect(connector.status().notice).toBeUndefined())
    room.sendCode = 1003
    host.finishTurn(session, '你好', ['dm:1'])
    await vi.waitFor(() =>
      expect(connector.status().notice).toMatch(/Bilibili refused a reply \(code 1003: 你被禁言啦\)/),
    )
    expect(room.sent).toEqual([])
    room.send([preparingCommand])
    await vi.waitFor(() => expect(connector.status().notice).toMatch(/the room is offline.*你被禁言啦/))
    expect(connector.status().state).toBe('ready')
  })

  it('follows its room as not live, unreachable while the link is down, and drops a reply made then', async () => {
    const room = await startRoom()
    const { host, connector, logLines } = connect(room, {
      cookie,
      post_replies: true,
      audience: { idle: { after_ms: 0 } },
    })
    const options = host.followOptions.get(session)
    expect(options?.live).toBe(false)
    expect(options?.audience).toMatchObject({ idle: { after_ms: 0 } })
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    expect(options?.reachable?.()).toBe(true)

    await room.kill()
    await vi.waitFor(() => expect(connector.status().state).not.toBe('ready'))
    expect(options?.reachable?.()).toBe(false)
    host.finishTurn(session, '没人听见的回复', ['dm:9'])
    expect(logLines.join('')).toContain('reply dropped: the Bilibili danmaku link is down')

    await room.restart()
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    host.finishTurn(session, '现在有人了', ['dm:10'])
    await vi.waitFor(() => expect(room.sent).toEqual(['现在有人了']))
  })

  it('counts a message the host refuses and keeps reading', async () => {
    const room = await startRoom()
    const host = createFakeConnectorHost()
    const accept = host.audience.bind(host)
    let refuseNext = true
    host.audience = (input) => {
      if (refuseNext) {
        refuseNext = false
        throw new Error('turn limit reached')
      }
      return accept(input)
    }
    const { connector } = connect(room, {}, host)
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    room.send([
      danmakuCommand({ uid: 1, idStr: 'r1', text: '一' }),
      danmakuCommand({ uid: 2, idStr: 'r2', text: '二' }),
    ])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(texts(host)).toEqual(['二'])
    expect(connector.status()).toMatchObject({ state: 'ready', messages_in: 2, messages_refused: 1 })
  })
})
