/**
 * A live stream's chat through the server: 100 messages a minute for four minutes of simulated time
 * (viewers, members, moderators, the owner, gifts, mentions, questions, duplicates, spam with blocked
 * words, a flood), half as WebSocket `audience` frames and half over HTTP, with a model that takes
 * its time like a real one. The clock is a manual one, so the four minutes take seconds. Checked:
 * the queue never exceeds queue_max; ≥ 90% of owner, moderator, gift and mention messages are
 * answered within max_wait_ms; no message older than that is answered; blocked words never reach the
 * model; a duplicate reaches it once; turns never overlap; every dropped message has a reason.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { AudienceMessage } from '../../src/audience/types.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createManualClock } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { openTestSocket } from '../server/websocket-client.js'
import { createTimedProvider, lastUserText } from './timed-provider.js'

const queueMax = 12
const maxWaitMs = 30_000
const session = 'live'
const blockedWord = 'spamlink'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

interface Scripted extends AudienceMessage {
  kind:
    | 'viewer'
    | 'member'
    | 'moderator'
    | 'owner'
    | 'gift'
    | 'mention'
    | 'question'
    | 'duplicate'
    | 'spam'
    | 'flood'
  sentAt?: number
}

/** A deterministic chat: message n of the script, its kind chosen by a fixed pattern. */
function scriptChat(count: number): Scripted[] {
  const kinds: Scripted['kind'][] = [
    'viewer',
    'question',
    'viewer',
    'member',
    'mention',
    'viewer',
    'duplicate',
    'gift',
    'viewer',
    'spam',
    'flood',
    'viewer',
    'moderator',
    'question',
    'viewer',
    'flood',
    'member',
    'viewer',
    'owner',
    'viewer',
  ]
  const messages: Scripted[] = []
  for (let index = 0; index < count; index++) {
    const kind = kinds[index % kinds.length]!
    const id = `msg-${index}`
    const tag = `#${index}#`
    const viewer = { id: `viewer-${index % 37}`, name: `观众${index % 37}` }
    const base = {
      id,
      kind,
      text: `今天的直播真好看 ${tag}`,
      speaker: { ...viewer, role: 'viewer' as const },
    }
    if (kind === 'member') messages.push({ ...base, speaker: { ...viewer, role: 'member' } })
    else if (kind === 'moderator')
      messages.push({
        ...base,
        speaker: { id: `mod-${index % 3}`, name: '房管', role: 'moderator' },
        text: `大家文明发言 ${tag}`,
      })
    else if (kind === 'owner')
      messages.push({
        ...base,
        speaker: { id: 'streamer', name: '主播', role: 'owner' },
        text: `下一局开始了 ${tag}`,
      })
    else if (kind === 'gift')
      messages.push({ ...base, gift: { name: '火箭', value: 1 }, text: `送你火箭 ${tag}` })
    else if (kind === 'mention') messages.push({ ...base, text: `小助手 唱首歌吧 ${tag}` })
    else if (kind === 'question') messages.push({ ...base, text: `这是什么游戏？ ${tag}` })
    else if (kind === 'spam') messages.push({ ...base, text: `加群领福利 ＳＰＡＭＬＩＮＫ ${tag}` })
    else if (kind === 'flood')
      messages.push({
        ...base,
        speaker: { id: 'flooder', name: '刷屏', role: 'viewer' },
        text: `哈哈哈 ${tag}`,
      })
    else messages.push(base)
    if (kind === 'duplicate') {
      // The same words from the same speaker again, a moment later, under a new id.
      const previous = messages[messages.length - 2]!
      messages[messages.length - 1] = { ...previous, id, kind }
    }
  }
  return messages
}

describe('a live stream chat through the server', () => {
  it('selects by the policy, within its bounds, for minutes of chat', { timeout: 120_000 }, async () => {
    const clock = createManualClock()
    const provider = createTimedProvider({ clock, firstTokenMs: 900, chunkMs: 70 })
    const providerTimes: number[] = []
    const streamChat = provider.streamChat.bind(provider)
    provider.streamChat = (request, options) => {
      providerTimes.push(clock.now())
      return streamChat(request, options)
    }
    let engine: Charpipe | undefined
    let received = 0
    server = await startTestServer({
      configText: [
        'character: { name: 小助手, reply_format: plain }',
        'history: { store: memory }',
        'memory: { enabled: false }',
        'server: { limits: { frames_per_second: 1000, turns_per_minute: 1000 } }',
        `audience: { queue_max: ${queueMax}, max_wait_ms: ${maxWaitMs}, batch_max: 3, min_gap_ms: 1500,`,
        `  dedupe_window_ms: 10000, blocked_words: [${blockedWord}] }`,
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
    const viewer = await openTestSocket(`${server.url}/ws`)
    viewer.send({ type: 'open', session })
    await viewer.waitFor((frame) => frame.type === 'opened')
    const chat = scriptChat(400)
    const sentAtOf = new Map<string, number>()
    const firstFrameAt = new Map<string, number>()
    viewer.socket.on('message', (data) => {
      const frame = JSON.parse(data.toString())
      if (typeof frame.turn === 'string' && frame.type === 'llm_sentence' && !firstFrameAt.has(frame.turn)) {
        firstFrameAt.set(frame.turn, clock.now())
      }
    })
    let largestQueue = 0
    for (const [index, message] of chat.entries()) {
      const { kind: _kind, sentAt: _sentAt, ...wire } = message
      sentAtOf.set(message.id, clock.now())
      if (index % 2 === 0) viewer.send({ type: 'audience', session, messages: [wire] })
      else {
        const response = await fetch(`${server.url}/api/sessions/${session}/audience`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messages: [wire] }),
        })
        expect(response.status).toBe(202)
      }
      await vi.waitFor(() => expect(received).toBe(index + 1), { interval: 1 })
      // The streamer speaks to the character now and then: that input comes first.
      if (index === 150) viewer.send({ type: 'user_input', session, text: '小助手，帮我看看弹幕' })
      for (let step = 0; step < 6; step++) {
        await clock.advance(100)
        largestQueue = Math.max(largestQueue, engine!.audience.queue({ session: session }).waiting.length)
      }
    }
    // Chat ends; the queue empties or ages out.
    for (let step = 0; step < 600; step++) await clock.advance(100)
    await vi.waitFor(() => expect(provider.running).toBe(0))
    await viewer.close()

    const frames = viewer.frames
    const audienceDone = frames.filter((frame) => frame.type === 'llm_done' && frame.trigger === 'audience')
    const dropped = frames.filter((frame) => frame.type === 'audience_dropped')
    const answered = new Map<string, string>()
    for (const done of audienceDone)
      for (const id of done.replying_to as string[]) answered.set(id, done.turn as string)
    const droppedIds = new Map<string, string>()
    for (const event of dropped)
      for (const id of event.ids as string[]) droppedIds.set(id, event.reason as string)

    // The queue never exceeds queue_max.
    expect(largestQueue).toBeLessThanOrEqual(queueMax)
    expect(largestQueue).toBeGreaterThan(0)
    // Turns never overlap; the owner's input had its own turn.
    expect(provider.maxConcurrent).toBe(1)
    expect(frames.some((frame) => frame.type === 'llm_done' && frame.trigger === 'input')).toBe(true)
    // Every event of an audience turn says so.
    const audienceTurns = new Set(audienceDone.map((done) => done.turn))
    for (const frame of frames.filter((each) => audienceTurns.has(each.turn as string)))
      expect(frame.trigger).toBe('audience')

    // No message older than max_wait_ms is answered: each batch was taken (the model asked) in time.
    const turnOrder = frames.filter((frame) => frame.type === 'llm_done').map((frame) => frame.turn as string)
    expect(turnOrder).toHaveLength(provider.requests.length)
    for (const [id, turn] of answered) {
      const askedAt = providerTimes[turnOrder.indexOf(turn)]!
      expect(askedAt - sentAtOf.get(id)!).toBeLessThanOrEqual(maxWaitMs)
    }
    // ≥ 90% of owner, moderator, gift and mention messages answered within max_wait_ms.
    const important = chat.filter((message) =>
      ['owner', 'moderator', 'gift', 'mention'].includes(message.kind),
    )
    const inTime = important.filter((message) => {
      const turn = answered.get(message.id)
      const spokenAt = turn ? firstFrameAt.get(turn) : undefined
      return spokenAt !== undefined && spokenAt - sentAtOf.get(message.id)! <= maxWaitMs
    })
    expect(inTime.length / important.length).toBeGreaterThanOrEqual(0.9)

    // Blocked words never reach the model, in any width or case.
    const sentToModel = JSON.stringify(provider.requests.map((request) => request.messages))
      .normalize('NFKC')
      .toLowerCase()
    expect(sentToModel).not.toContain(blockedWord)
    // Each message's words reach the model once (as the input or an observed line), duplicates included.
    const inputs = provider.requests.map(lastUserText).join('\n')
    for (const message of chat) {
      const tag = message.text.match(/#\d+#/)![0]
      expect(inputs.split(tag).length - 1).toBeLessThanOrEqual(1)
    }
    for (const duplicate of chat.filter((message) => message.kind === 'duplicate')) {
      expect(droppedIds.get(duplicate.id)).toBe('duplicate')
    }

    // Every message is answered or dropped with a reason; none is both.
    for (const message of chat) {
      const reason = droppedIds.get(message.id)
      expect(answered.has(message.id) !== (reason !== undefined)).toBe(true)
      if (reason) expect(['queue_full', 'too_old', 'duplicate', 'blocked']).toContain(reason)
    }
    const reasons = new Set(droppedIds.values())
    expect(reasons).toContain('duplicate')
    expect(reasons).toContain('blocked')
    // More chat than the character can answer: some plain messages had to give way.
    expect(reasons.has('queue_full') || reasons.has('too_old')).toBe(true)
    for (const spam of chat.filter((message) => message.kind === 'spam'))
      expect(droppedIds.get(spam.id)).toBe('blocked')

    // The metrics count it all.
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).toMatch(/charpipe_audience_messages_total 400/)
    expect(metrics).toMatch(/charpipe_audience_dropped_total\{reason="blocked"\} \d+/)
    expect(metrics).toMatch(/charpipe_audience_wait_seconds\{quantile="0.99"\} \d/)
  })
})
