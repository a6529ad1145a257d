/**
 * What the Bilibili connector adds to the audience selector's weights (this room's fan medal, a
 * minimum user level) and its thank-you line for follows, gifts and guards, against the fake room.
 */
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bilibiliConnectorSchema } from '../../src/config/schema.js'
import { createBilibiliConnector } from '../../src/connectors/bilibili/create-bilibili-connector.js'
import { createLogger } from '../../src/shared/logger.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import {
  danmakuCommand,
  giftCommand,
  guardCommand,
  interactCommand,
  interactV2Command,
  superChatCommand,
} from './__fixtures__/bilibili-commands.js'
import { type FakeBilibiliLive, startFakeBilibiliLive } from './fake-bilibili-live.js'
import { createFakeConnectorHost } from './fake-connector-host.js'

const roomId = 21452505
const cookie = 'SESSDATA=sess-fan-secret; bili_jct=csrf-fan-secret; DedeUserID=555; buvid3=b'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function open(overrides: Record<string, unknown>, clock: ManualClock = createManualClock()) {
  const room: FakeBilibiliLive = await startFakeBilibiliLive({
    roomId,
    ownerUid: 1000,
    csrf: 'csrf-fan-secret',
  })
  cleanups.push(() => room.close())
  const host = createFakeConnectorHost()
  const connector = createBilibiliConnector({
    config: bilibiliConnectorSchema.parse({
      name: 'live',
      room_id: roomId,
      url: room.url,
      api_url: room.apiUrl,
      ...overrides,
    }),
    host,
    characterName: '小雪',
    logger: createLogger({
      level: 'error',
      format: 'json',
      destination: new Writable({ write: (_c, _e, done) => done() }),
    }),
    backoff: { initialMs: 20, maxMs: 100 },
    clock,
  })
  cleanups.push(() => connector.close())
  await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
  return { room, host, connector, clock }
}

const callOf = (host: ReturnType<typeof createFakeConnectorHost>, text: string) =>
  host.audienceCalls.find((call) => call.messages[0]?.text === text)

describe('Bilibili fans and thanks', () => {
  it("weighs this room's fan medal by its level and holds back danmaku below the user level", async () => {
    const { room, host, connector } = await open({
      cookie,
      medal_weight: 5,
      medal_level_weight: 2,
      min_user_level: 10,
    })
    room.send([
      danmakuCommand({
        uid: 8,
        idStr: 'a',
        text: '老粉来了',
        medal: [20, '雪糕', '小雪', roomId],
        userLevel: 25,
      }),
      danmakuCommand({ uid: 9, idStr: 'b', text: '别家粉丝', medal: [30, '别家', '别人', 1], userLevel: 40 }),
      danmakuCommand({ uid: 10, idStr: 'c', text: '小号发言', userLevel: 3 }),
      superChatCommand({ id: 5, uid: 11, text: '低等级也付了钱' }),
      // The streamer, an admin and a guard are answered whatever their level.
      danmakuCommand({ uid: 1000, idStr: 'd', text: '主播说话', userLevel: 1 }),
      danmakuCommand({ uid: 12, idStr: 'e', text: '房管说话', userLevel: 1, admin: 1 }),
      danmakuCommand({ uid: 13, idStr: 'f', text: '舰长说话', userLevel: 1, guardLevel: 3 }),
    ])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(7))
    for (const text of ['主播说话', '房管说话', '舰长说话']) expect(callOf(host, text)?.weigh).toBeUndefined()
    const message = (text: string) => callOf(host, text)!.messages[0]!
    expect(callOf(host, '老粉来了')?.weigh?.(message('老粉来了'))).toEqual({ bonus: 45, reason: 'medal' })
    expect(callOf(host, '别家粉丝')?.weigh).toBeUndefined()
    // Observed, so the model reads it with the next reply, but never answered.
    expect(callOf(host, '小号发言')?.weigh?.(message('小号发言'))).toEqual({ answer: false })
    expect(callOf(host, '低等级也付了钱')?.weigh).toBeUndefined()
    expect(connector.status().counted).toMatchObject({ below_user_level: 1 })
  })

  it('holds no anonymous reader back: their level is unknown', async () => {
    const { room, host, connector } = await open({ min_user_level: 10 })
    room.send([danmakuCommand({ uid: 0, name: '张***', idStr: 'x', text: '路过', userLevel: 0 })])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.weigh).toBeUndefined()
    expect(connector.status().counted).toMatchObject({ below_user_level: 0 })
  })

  it('thanks follows, gifts and guards in one line per window, by the injected clock', async () => {
    const { room, host, connector, clock } = await open({
      cookie,
      thank_you: { every_s: 30, template: '感谢一下：{thanks}' },
    })
    const twoFlowers = giftCommand({ uid: 2001, name: '小鱼干', tid: 'g2', price: 1000, num: 2 })
    room.send([
      interactV2Command(2, 6001, '粉丝甲'),
      interactCommand(1),
      giftCommand({ uid: 2001, name: '小鱼干', tid: 'g1', price: 1000, num: 1 }),
      twoFlowers,
      // The same gift sent again in another frame is thanked once.
      twoFlowers,
      guardCommand({ uid: 3001, name: '舰长大人', level: 3 }),
      superChatCommand({ id: 9, uid: 4001, text: '醒目留言照常回答' }),
    ])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.messages[0]?.text).toBe('醒目留言照常回答')

    await clock.advance(29_999)
    expect(host.audienceCalls).toHaveLength(1)
    await clock.advance(1)
    expect(host.audienceCalls).toHaveLength(2)
    expect(host.audienceCalls[1]?.messages[0]).toMatchObject({
      speaker: { id: 'room', name: '直播间', role: 'owner' },
      text: '感谢一下：粉丝甲 关注了直播间；小鱼干 投喂 小花花 ×3；舰长大人 开通了舰长',
      gift: { name: '礼物', value: 201 },
    })

    // A quiet room gets no line; the next follow opens the next window.
    await clock.advance(60_000)
    expect(host.audienceCalls).toHaveLength(2)
    room.send([interactCommand(2, 5002)])
    await vi.waitFor(() => expect(connector.status().counted).toMatchObject({ followed: 2 }))
    await clock.advance(30_000)
    expect(host.audienceCalls.at(-1)?.messages[0]?.text).toBe('感谢一下：路人甲 关注了直播间')
    expect(host.audienceCalls.at(-1)?.messages[0]?.gift).toBeUndefined()
    expect(connector.status()).toMatchObject({ counted: { thank_you: 2, followed: 2, entered: 1 } })
  })

  it('answers gifts one by one when the thank-you is only for follows', async () => {
    const { room, host, clock } = await open({ thank_you: { every_s: 10, for: ['follow'] } })
    room.send([giftCommand({ tid: 'g9', price: 1000, num: 1 }), interactCommand(2)])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.messages[0]?.gift).toEqual({ name: '小花花', value: 1 })
    await clock.advance(10_000)
    expect(host.audienceCalls.at(-1)?.messages[0]?.text).toBe('请用一两句话感谢：路人甲 关注了直播间')
  })
})
