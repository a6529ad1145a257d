/**
 * The Bilibili connector's medal and level weights and its thank-you line through the running
 * server, its engine and the real audience selector, on one manual clock: a fan wearing this room's
 * medal is queued with the medal's weight and named reason; a low-level account's danmaku reaches
 * the model as a line of the room but is never answered; follows and gifts become one thank-you,
 * answered in a turn the streamer's voice client follows and posted to the room once.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider } from '../audience/timed-provider.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { openTestSocket } from '../server/websocket-client.js'
import { danmakuCommand, giftCommand, interactV2Command } from './__fixtures__/bilibili-commands.js'
import { type FakeBilibiliLive, startFakeBilibiliLive } from './fake-bilibili-live.js'

const roomId = 21452505
const session = `bilibili:room:${roomId}`
const cookie = 'SESSDATA=sess-fan-server; bili_jct=csrf-fan-server; DedeUserID=555; buvid3=b'

let server: TestServer | undefined
let room: FakeBilibiliLive | undefined
afterEach(async () => {
  await server?.stop()
  await room?.close()
  server = undefined
  room = undefined
})

async function advance(clock: ManualClock, milliseconds: number) {
  for (let elapsed = 0; elapsed < milliseconds; elapsed += 100) await clock.advance(100)
}

describe('Bilibili fans and thanks through the server', () => {
  it('weighs the medal, keeps low levels from answers, and answers one thank-you per window', {
    timeout: 60_000,
  }, async () => {
    const clock = createManualClock()
    const provider = createTimedProvider({ clock, firstTokenMs: 200, chunkMs: 20, reply: () => '谢谢大家！' })
    room = await startFakeBilibiliLive({ roomId, ownerUid: 1, csrf: 'csrf-fan-server' })
    let engine: Charpipe | undefined
    server = await startTestServer({
      connectorClock: clock,
      configText: [
        'character: { name: 小雪, reply_format: plain }',
        'history: { store: memory }',
        'memory: { enabled: false }',
        'audience: { batch_max: 8, min_gap_ms: 1000 }',
        'connectors:',
        '  bilibili:',
        '    - name: room',
        `      room_id: ${roomId}`,
        `      url: ${room.url}`,
        `      api_url: ${room.apiUrl}`,
        `      cookie: "${cookie}"`,
        '      post_replies: true',
        '      medal_weight: 5',
        '      medal_level_weight: 1',
        '      min_user_level: 10',
        '      thank_you: { every_s: 30 }',
      ].join('\n'),
      createCharpipe: async (config, logger) => {
        engine = await createCharpipe(config, { logger, provider, clock })
        return engine
      },
    })
    const live = room
    await vi.waitFor(() => expect(live.connectedCount()).toBe(1), { timeout: 15_000 })
    const follower = await openTestSocket(`${server.url}/ws`)
    follower.send({ type: 'open', session })
    await follower.waitFor((frame) => frame.type === 'opened')

    live.send([
      danmakuCommand({ uid: 20, name: '新观众', idStr: 'a', text: '第一次来', userLevel: 30 }),
      danmakuCommand({
        uid: 21,
        name: '老粉',
        idStr: 'b',
        text: '又来啦',
        userLevel: 30,
        medal: [20, '雪糕', '小雪', roomId],
      }),
      danmakuCommand({ uid: 22, name: '小号', idStr: 'c', text: '小号路过', userLevel: 2 }),
    ])
    const queueOf = () => engine!.audienceQueue(session)
    const entryOf = (id: string) =>
      [...queueOf().waiting, ...queueOf().selected].find((entry) => entry.id === id)
    await vi.waitFor(() => expect(entryOf('dm:b')).toBeDefined())
    expect(entryOf('dm:b')).toMatchObject({ priority: 1 + 10 + 5 + 20, reasons: ['first_message', 'medal'] })
    expect(entryOf('dm:a')).toMatchObject({ priority: 1 + 10, reasons: ['first_message'] })
    expect(entryOf('dm:c')).toBeUndefined()
    expect(queueOf().dropped.map((entry) => entry.id)).not.toContain('dm:c')

    // The first message started a turn at once; the fan's is answered by the next.
    const dones = () => follower.frames.filter((frame) => frame.type === 'llm_done')
    await vi.waitFor(
      async () => {
        await advance(clock, 500)
        expect(dones()).toHaveLength(2)
        expect(queueOf().waiting).toEqual([])
      },
      { timeout: 20_000, interval: 10 },
    )
    const answered = dones().flatMap((frame) => frame.replying_to as string[])
    expect(answered).toEqual(['dm:a', 'dm:b'])
    // The low-level line reached the model as part of the room, never as something to answer.
    expect(JSON.stringify(provider.requests[1]?.messages)).toContain('小号路过')

    live.send([
      interactV2Command(2, 6001, '粉丝甲'),
      giftCommand({ uid: 2001, name: '小鱼干', tid: 'g1', price: 1000, num: 3 }),
    ])
    await vi.waitFor(
      async () => {
        await advance(clock, 500)
        expect(dones()).toHaveLength(3)
      },
      { timeout: 20_000, interval: 10 },
    )
    const thanksDone = dones()[2]
    expect(thanksDone?.replying_to).toEqual([expect.stringMatching(/^thanks:/)])
    expect(JSON.stringify(provider.requests[2]?.messages)).toContain(
      '请用一两句话感谢：粉丝甲 关注了直播间；小鱼干 投喂 小花花 ×3',
    )
    await vi.waitFor(async () => {
      await advance(clock, 500)
      expect(live.sent).toEqual(['谢谢大家！', '谢谢大家！', '谢谢大家！'])
    })
    const status = await fetch(`${server.url}/api/connectors`).then((response) => response.json())
    expect(status.connectors[0]).toMatchObject({
      counted: { below_user_level: 1, followed: 1, thank_you: 1 },
    })
    await follower.close()
  })
})
