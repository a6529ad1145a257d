/**
 * A Bilibili live room of 100 messages a minute through the running server, its engine and its
 * audience selector: danmaku (plain, zlib and brotli frames), gold gifts, super chats, entries,
 * duplicates, spam with a blocked word and a frame the server sends again. The engine, its model and
 * the connector's reply pacing run on one manual clock, so two minutes take seconds. Checked: every
 * gift and super chat is answered by the next turn; blocked words never reach the model; a
 * duplicate reaches it once; each reply goes out once, in pieces of at most 20 characters; while
 * the room's server is killed another session is served; after it is back nothing is fed or sent
 * twice.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { splitReplyText } from '../../src/connectors/split-reply-text.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider, lastUserText } from '../audience/timed-provider.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { openTestSocket, type TestSocket } from '../server/websocket-client.js'
import {
  danmakuCommand,
  giftCommand,
  interactCommand,
  superChatCommand,
} from './__fixtures__/bilibili-commands.js'
import { type FakeBilibiliLive, startFakeBilibiliLive } from './fake-bilibili-live.js'

const session = 'bilibili:room:21452505'
const cookie = 'SESSDATA=sess-live-secret; bili_jct=csrf-live-secret; DedeUserID=555; buvid3=b'
const replies = [
  '谢谢你的醒目留言！今天我们一起唱歌吧。下一首马上就来，大家别走开哦。',
  '收到啦，谢谢礼物！这首歌送给大家。希望你们喜欢，记得点个关注。',
]

let server: TestServer | undefined
let room: FakeBilibiliLive | undefined
afterEach(async () => {
  await server?.stop()
  await room?.close()
  server = undefined
  room = undefined
})

interface Scripted {
  kind: 'danmaku' | 'gift' | 'super_chat' | 'duplicate' | 'spam' | 'entered'
  id: string
  command: unknown
}

/** Minute `minute`'s 100 commands: every 10th a gift, every 25th a super chat, some spam and repeats. */
function scriptMinute(minute: number): Scripted[] {
  const script: Scripted[] = []
  for (let index = 0; index < 100; index++) {
    const n = minute * 100 + index
    const tag = `#${n}#`
    const uid = 10_000 + (n % 41)
    if (index % 25 === 12) {
      script.push({
        kind: 'super_chat',
        id: `sc:${n}`,
        command: superChatCommand({ id: n, uid, name: `富婆${n}`, text: `醒目留言 ${tag}`, price: 30 + n }),
      })
    } else if (index % 10 === 5) {
      script.push({
        kind: 'gift',
        id: `gift:t${n}`,
        command: giftCommand({ uid, name: `观众${uid}`, tid: `t${n}`, price: 1000, num: 1 + (n % 3) }),
      })
    } else if (index % 20 === 7) {
      script.push({
        kind: 'spam',
        id: `dm:${n}`,
        command: danmakuCommand({ uid, name: `观众${uid}`, idStr: String(n), text: `代刷粉丝 加我 ${tag}` }),
      })
    } else if (index % 20 === 9) {
      // The previous danmaku's speaker says the same words again under a new id.
      const previous = script.findLast((each) => each.kind === 'danmaku') as Scripted
      const info = (previous.command as { info: unknown[] }).info
      const text = String(info[1])
      const speaker = info[2] as [number, string]
      script.push({
        kind: 'duplicate',
        id: `dm:${n}`,
        command: danmakuCommand({ uid: speaker[0], name: speaker[1], idStr: String(n), text }),
      })
    } else if (index % 20 === 3) {
      script.push({ kind: 'entered', id: '', command: interactCommand(1, uid) })
    } else {
      script.push({
        kind: 'danmaku',
        id: `dm:${n}`,
        command: danmakuCommand({ uid, name: `观众${uid}`, idStr: String(n), text: `今天玩什么 ${tag}` }),
      })
    }
  }
  return script
}

async function advance(clock: ManualClock, milliseconds: number) {
  for (let elapsed = 0; elapsed < milliseconds; elapsed += 100) await clock.advance(100)
}

describe('a Bilibili live room through the server', () => {
  it('answers super chats and gifts first, posts each reply once in pieces, and survives its server going away', {
    timeout: 180_000,
  }, async () => {
    const clock = createManualClock()
    let replyIndex = 0
    const provider = createTimedProvider({
      clock,
      firstTokenMs: 900,
      chunkMs: 70,
      reply: () => replies[replyIndex++ % replies.length] as string,
    })
    room = await startFakeBilibiliLive({ roomId: 21452505, ownerUid: 1, csrf: 'csrf-live-secret' })
    let engine: Charpipe | undefined
    let received = 0
    server = await startTestServer({
      connectorClock: clock,
      configText: [
        'character: { name: 小雪, reply_format: plain }',
        'history: { store: memory }',
        'memory: { enabled: false }',
        'audience:',
        '  queue_max: 12',
        '  max_wait_ms: 30000',
        '  batch_max: 3',
        // A streamer paces the character to what Bilibili lets an account send (a danmaku each 1.5 s).
        '  min_gap_ms: 5000',
        '  dedupe_window_ms: 10000',
        '  blocked_words: [代刷]',
        '  weights: { owner: 100, moderator: 50, gift: 300, mention: 30, question: 10, first_message: 10, member: 20 }',
        'connectors:',
        '  bilibili:',
        '    - name: room',
        '      room_id: 21452505',
        `      url: ${room.url}`,
        `      api_url: ${room.apiUrl}`,
        `      cookie: "${cookie}"`,
        '      post_replies: true',
        '      max_message_chars: 20',
      ].join('\n'),
      createCharpipe: async (config, logger) => {
        engine = await createCharpipe(config, { logger, provider, clock })
        const send = engine.audience.send.bind(engine.audience)
        engine.audience.send = (input) => {
          received += input.messages.length
          return send(input)
        }
        return engine
      },
    })
    const live = room
    await vi.waitFor(() => expect(live.connectedCount()).toBe(1), { timeout: 15_000 })
    // The streamer's voice client follows the room's session.
    const follower = await openTestSocket(`${server.url}/ws`)
    follower.send({ type: 'open', session })
    await follower.waitFor((frame) => frame.type === 'opened')
    const arrivedAtTurn = new Map<string, number>()

    const playMinute = async (script: Scripted[]) => {
      for (const [index, each] of script.entries()) {
        const expected = received + (each.kind === 'entered' ? 0 : 1)
        if (each.id !== '') arrivedAtTurn.set(each.id, countAudienceTurns(follower))
        live.send([each.command], ([0, 2, 3] as const)[index % 3])
        await vi.waitFor(() => expect(received).toBe(expected), { interval: 1 })
        await advance(clock, 600)
      }
    }
    /** `inputTurns`: the model's requests so far that were not this room's (the other session's). */
    const drain = async (inputTurns: number) => {
      for (let step = 0; step < 60; step++) await advance(clock, 1000)
      // Turns and the replies' pacing run on the same clock: let it run until nothing waits, no
      // turn runs, and no danmaku went out for three send intervals (the outbox is empty).
      let quiet = 0
      let lastSent = -1
      await vi.waitFor(
        async () => {
          await advance(clock, 1500)
          quiet = live.sent.length === lastSent ? quiet + 1 : 0
          lastSent = live.sent.length
          expect(engine?.audience.queue({ session: session }).waiting, 'waiting messages').toEqual([])
          expect(provider.running, 'running turns').toBe(0)
          // The follower has every turn's end (its frames arrive over a socket, after the connector's).
          expect(audienceDone(follower), 'turn ends followed').toHaveLength(
            provider.requests.length - inputTurns,
          )
          expect(quiet, 'send intervals without a danmaku').toBeGreaterThanOrEqual(3)
        },
        { timeout: 30_000, interval: 50 },
      )
    }

    const first = scriptMinute(0)
    await playMinute(first)
    await drain(0)

    // The room's server goes away: the connector says so, and another session is served meanwhile.
    await live.kill()
    await vi.waitFor(async () => {
      const answer = await fetch(`${server?.url}/api/connectors`).then((response) => response.json())
      expect(answer.connectors[0]).toMatchObject({ kind: 'bilibili', state: 'failed' })
    })
    const elsewhere = await openTestSocket(`${server.url}/ws`)
    elsewhere.send({ type: 'user_input', session: 'elsewhere', text: '你好' })
    const turn = elsewhere.waitForTurn('elsewhere')
    // Its turn runs on the manual clock: let time pass until it is done (the frame arrives in real time).
    await vi.waitFor(
      async () => {
        await advance(clock, 200)
        expect(elsewhere.frames.some((frame) => frame.type === 'llm_done')).toBe(true)
      },
      { timeout: 20_000, interval: 10 },
    )
    expect((await turn).at(-1)).toMatchObject({ type: 'llm_done', session: 'elsewhere' })
    await elsewhere.close()

    await live.restart()
    await vi.waitFor(() => expect(live.connectedCount()).toBe(1), { timeout: 20_000 })
    expect(live.auths.at(-1)?.key).toBe(live.tokens.at(-1))
    // The server sends the last commands of before again: none is fed a second time.
    const before = received
    live.send(
      first
        .slice(-5)
        .filter((each) => each.kind !== 'entered')
        .map((each) => each.command),
    )
    const second = scriptMinute(1)
    await playMinute(second)
    await drain(1)
    expect(received - before).toBe(second.filter((each) => each.kind !== 'entered').length)

    const chat = [...first, ...second]
    const answered = answeredIds(follower)
    const turnsOf = audienceTurnIds(follower)
    // Every super chat and gift is answered, by the next turn to start after it arrived (the one
    // running then, if its batch was still open, or the one after).
    for (const paid of chat.filter((each) => each.kind === 'gift' || each.kind === 'super_chat')) {
      const turnId = answered.get(paid.id)
      expect(turnId, paid.id).toBeDefined()
      const turnsBetween = turnsOf.indexOf(turnId as string) - (arrivedAtTurn.get(paid.id) as number)
      expect(turnsBetween, paid.id).toBeGreaterThanOrEqual(0)
      expect(turnsBetween, paid.id).toBeLessThanOrEqual(1)
    }
    // Blocked words never reach the model; a repeated line reaches it once.
    const prompts = JSON.stringify(provider.requests.map((request) => request.messages))
    expect(prompts).not.toContain('代刷')
    const inputs = provider.requests.map(lastUserText).join('\n')
    for (const each of chat) {
      const tag = JSON.stringify(each.command).match(/#\d+#/)?.[0]
      if (tag) expect(inputs.split(tag).length - 1, tag).toBeLessThanOrEqual(1)
    }
    for (const duplicate of chat.filter((each) => each.kind === 'duplicate'))
      expect(answered.has(duplicate.id)).toBe(false)
    // Each reply went out once, in order, whole, cut at sentence ends to 20 characters. One that
    // waited past a minute (of the clock this test runs fast, ahead of the sends' real round trips)
    // is given up whole; nearly all go out.
    const allReplies = audienceReplies(follower)
    let at = 0
    let repliesSent = 0
    for (const reply of allReplies) {
      const parts = splitReplyText(reply, 20)
      if (live.sent[at] !== parts[0]) continue
      expect(live.sent.slice(at, at + parts.length)).toEqual(parts)
      at += parts.length
      repliesSent += 1
    }
    expect(at, 'every danmaku sent belongs to one whole reply').toBe(live.sent.length)
    for (const part of live.sent) expect(part.length).toBeLessThanOrEqual(20)
    expect(allReplies.length).toBeGreaterThan(10)
    expect(repliesSent / allReplies.length).toBeGreaterThanOrEqual(0.8)
    expect(live.sent.length).toBeGreaterThan(repliesSent)

    const status = await fetch(`${server.url}/api/connectors`).then((response) => response.json())
    expect(status.connectors[0]).toMatchObject({
      name: 'room',
      kind: 'bilibili',
      state: 'ready',
      sessions: [session],
      messages_out: live.sent.length,
      counted: { entered: 10 },
    })
    expect(JSON.stringify(status) + server.logLines.join('\n')).not.toMatch(
      /sess-live-secret|csrf-live-secret/,
    )
    await follower.close()
  })
})

function audienceDone(socket: TestSocket) {
  return socket.frames.filter((frame) => frame.type === 'llm_done' && frame.trigger === 'audience')
}

function countAudienceTurns(socket: TestSocket): number {
  return audienceDone(socket).length
}

function audienceTurnIds(socket: TestSocket): string[] {
  return audienceDone(socket).map((frame) => frame.turn as string)
}

function audienceReplies(socket: TestSocket): string[] {
  return audienceDone(socket).map((frame) => String(frame.text).replace(/\s+/g, ' ').trim())
}

function answeredIds(socket: TestSocket): Map<string, string> {
  const answered = new Map<string, string>()
  for (const done of audienceDone(socket))
    for (const id of done.replying_to as string[]) answered.set(id, done.turn as string)
  return answered
}
