/**
 * Every connector's inbound side under generated input: OneBot events on both links with fields
 * of every JSON kind, Twitch IRC lines of random text and tag junk, Bilibili frames with random
 * headers, wrong lengths, nested zlib and brotli packets and bombs. Nothing thrown or rejected
 * escapes (the process's own listeners are watched), every refusal is counted with a reason, and
 * the work per input is bounded by counts (bytes inflated, packets read), never timed.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  bilibiliConnectorSchema,
  onebotConnectorSchema,
  twitchConnectorSchema,
} from '../../src/config/schema.js'
import { createBilibiliConnector } from '../../src/connectors/bilibili/create-bilibili-connector.js'
import {
  DanmakuFrameError,
  danmakuFrameLimits,
  encodeCompressedPackets,
  encodeDanmakuPacket,
  readDanmakuFrame,
} from '../../src/connectors/bilibili/danmaku-packet.js'
import { convertOnebotMessage } from '../../src/connectors/onebot/convert-onebot-message.js'
import { createOnebotConnector } from '../../src/connectors/onebot/create-onebot-connector.js'
import { convertTwitchMessage } from '../../src/connectors/twitch/convert-twitch-message.js'
import { createTwitchConnector } from '../../src/connectors/twitch/create-twitch-connector.js'
import { parseIrcLine } from '../../src/connectors/twitch/parse-irc-line.js'
import { createLogger } from '../../src/shared/logger.js'
import { danmakuCommand } from './__fixtures__/bilibili-commands.js'
import { createInflationBomb, nestCompressed } from './__fixtures__/danmaku-bombs.js'
import { startFakeBilibiliLive } from './fake-bilibili-live.js'
import { createFakeConnectorHost } from './fake-connector-host.js'
import { startFakeOnebot } from './fake-onebot-implementation.js'
import { startFakeTwitchChat } from './fake-twitch-chat.js'
import { watchProcessErrors } from './watch-process-errors.js'

const logger = createLogger({ level: 'silent' })
const backoff = { initialMs: 20, maxMs: 100 }
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function watch() {
  const watched = watchProcessErrors()
  cleanups.push(() => watched.stop())
  return watched
}

const sum = (counts: Record<string, number> | undefined) =>
  Object.values(counts ?? {}).reduce((total, count) => total + count, 0)

// ---------------------------------------------------------------- OneBot

const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown
/** Any JSON value, and the kinds that broke conversion: objects with their own toString or valueOf, deep and huge values. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 12 },
  {
    arbitrary: fc.constantFrom<unknown>(
      null,
      [null],
      [[null]],
      { toString: 1 },
      { valueOf: 1, toString: null },
      { toString: {} },
      JSON.parse('{"__proto__":{"polluted":1},"constructor":1}'),
      '',
      -0,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
    ),
    weight: 6,
  },
  { arbitrary: fc.integer({ min: 50, max: 1000 }).map(nested), weight: 1 },
  // Huge, rarely: each is tens of kilobytes of JSON.
  {
    arbitrary: fc.constantFrom('x'.repeat(30_000), Array(1500).fill({ type: 'text', data: { text: 'y' } })),
    weight: 1,
  },
)
const junkSegment = fc.oneof(
  junk,
  fc.record({ type: junk, data: junk }),
  fc.record({ type: fc.constantFrom('text', 'at', 'reply', 'image', 'face', 'other'), data: junk }),
  fc.record({
    type: fc.constantFrom('text', 'at', 'reply', 'image'),
    data: fc.dictionary(fc.constantFrom('text', 'qq', 'id', 'url', 'file', 'name'), junk),
  }),
)
const replaceableFields = ['message_id', 'user_id', 'message', 'sender', 'sub_type', 'raw_message'] as const

/** A valid group or private message event of user 42 with some of its fields replaced by junk. */
const onebotEvent = (messageType: 'group' | 'private') =>
  fc
    .record({
      replaced: fc.dictionary(fc.constantFrom(...replaceableFields), junk, { maxKeys: 3 }),
      message: fc.oneof(fc.array(junkSegment, { maxLength: 6 }), fc.string({ maxLength: 200 })),
      sender: fc.oneof(junk, fc.record({ card: junk, nickname: junk, role: junk })),
    })
    .map(({ replaced, message, sender }) => ({
      time: 1,
      self_id: 10001,
      post_type: 'message',
      message_type: messageType,
      ...(messageType === 'group' ? { group_id: 123 } : {}),
      user_id: 42,
      message,
      sender,
      ...replaced,
    }))

const refusalReasons = new Set(['no_message_id', 'no_user_id', 'no_segments'])

describe('OneBot inbound, generated', () => {
  it('converts any event or refuses it with a reason, never throwing', () => {
    fc.assert(
      fc.property(fc.oneof(onebotEvent('group'), onebotEvent('private')), (event) => {
        const result = convertOnebotMessage({
          event: JSON.parse(JSON.stringify(event)) as Record<string, unknown>,
          characterName: '小雪',
          isOwnMessage: () => false,
        })
        if (result.ok) {
          expect(typeof result.message.id).toBe('string')
          expect(typeof result.message.text).toBe('string')
          expect(typeof result.message.speaker.id).toBe('string')
          expect(typeof result.message.speaker.name).toBe('string')
        } else {
          expect(refusalReasons.has(result.reason)).toBe(true)
          expect(result.detail).not.toBe('')
        }
      }),
      { numRuns: 300 },
    )
  })

  it('on the reverse link: every event is handed on once or counted as refused, nothing escapes', async () => {
    const watched = watch()
    // The bot's own id as a sender is a self echo, ignored by design rather than refused.
    const events = fc
      .sample(fc.oneof(onebotEvent('group'), onebotEvent('private')), { numRuns: 300, seed: 7 })
      .filter((event) => !([10001, '10001'] as unknown[]).includes(event.user_id))
    const host = createFakeConnectorHost()
    const config = onebotConnectorSchema.parse({
      name: 'qq',
      listen: '/onebot/qq',
      groups: [123],
      private: true,
    })
    const connector = createOnebotConnector({ config, host, characterName: '小雪', logger, backoff })
    cleanups.push(() => connector.close())
    const link = connector.attachReverse({ send: () => {}, close: () => {} }, '10001')
    const frames = events.map((event) => JSON.stringify(event))
    for (const frame of frames) expect(() => link.receive(frame)).not.toThrow()
    for (const frame of ['not json', '[]', 'null', '{"post_type":{"toString":1}}']) link.receive(frame)
    // What the converter accepts, once per id, is handed on; what it refuses is counted as such.
    const converted = frames.map((frame) =>
      convertOnebotMessage({
        event: JSON.parse(frame) as Record<string, unknown>,
        characterName: '小雪',
        isOwnMessage: () => false,
      }),
    )
    const acceptedIds = new Set(converted.flatMap((result) => (result.ok ? [result.message.id] : [])))
    const refused = converted.filter((result) => !result.ok).length
    const status = connector.status()
    expect(status.messages_in).toBe(acceptedIds.size)
    expect(sum(status.malformed) - (status.malformed?.bad_frame ?? 0)).toBe(refused)
    expect(status.malformed?.bad_frame).toBe(3)
    expect(status.malformed?.unreadable).toBeUndefined()
    for (const call of host.audienceCalls) expect(acceptedIds.has(call.messages[0]?.id ?? '')).toBe(true)
    expect(host.audienceCalls.length).toBeGreaterThan(0)
    await vi.waitFor(() => expect(host.runCalls.length).toBeGreaterThan(0))
    for (const call of host.runCalls) expect(call.text).not.toBe('')
    expect(watched.errors).toEqual([])
  })

  it('on the forward link: a few hundred generated events through a OneBot implementation, then a marker', async () => {
    const watched = watch()
    const fake = await startFakeOnebot()
    cleanups.push(() => fake.close())
    const host = createFakeConnectorHost()
    const config = onebotConnectorSchema.parse({ name: 'qq', url: fake.url, groups: [123], private: true })
    const connector = createOnebotConnector({ config, host, characterName: '小雪', logger, backoff })
    cleanups.push(() => connector.close())
    await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    const events = fc.sample(fc.oneof(onebotEvent('group'), onebotEvent('private')), {
      numRuns: 300,
      seed: 11,
    })
    for (const event of events) fake.sendRaw(JSON.stringify(event))
    fake.sendGroupMessage({ groupId: 123, userId: 9, message: 'marker' })
    await vi.waitFor(
      () => expect(host.audienceCalls.some((call) => call.messages[0]?.text === 'marker')).toBe(true),
      { timeout: 10_000 },
    )
    const status = connector.status()
    expect(status.state).toBe('ready')
    expect(status.messages_in + sum(status.malformed)).toBeLessThanOrEqual(events.length + 1)
    expect(sum(status.malformed)).toBeGreaterThan(0)
    // Refused by the conversion, each with its reason: none reached the guard as an exception.
    expect(status.malformed?.unreadable).toBeUndefined()
    expect(watched.errors).toEqual([])
  })
})

// ---------------------------------------------------------------- Twitch

const tagJunk = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('id', 'badges', 'bits', 'user-id', 'display-name', '__proto__', 'constructor'),
        fc.string({ maxLength: 12 }),
      ),
      fc.string({ maxLength: 40 }),
    ),
    { maxLength: 8 },
  )
  .map((tags) => tags.map(([key, value]) => `${key}=${value}`).join(';'))
const ircLine = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc
    .tuple(tagJunk, fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 200 }))
    .map(([tags, login, text]) => `@${tags} :${login}!${login}@x PRIVMSG #chan :${text}`),
  fc.constantFrom('x'.repeat(20_000), `@${'a=b;'.repeat(5000)} :u PRIVMSG #chan :hi`, '@', ':', ' :', '@ :'),
)

describe('Twitch inbound, generated', () => {
  it('parses and converts any line, or refuses it, never throwing', () => {
    fc.assert(
      fc.property(ircLine, fc.constantFrom('', 'bot', 'a(b', 'x.*+'), (line, botLogin) => {
        const message = parseIrcLine(line)
        if (!message) return
        expect(typeof message.command).toBe('string')
        const converted = convertTwitchMessage({ message, characterName: 'Nova', botLogin })
        if (converted) expect(typeof converted.text).toBe('string')
      }),
      { numRuns: 500 },
    )
  })

  it('reads a few hundred generated lines in a chat, then a marker, nothing escaping', async () => {
    const watched = watch()
    const chat = await startFakeTwitchChat({ channel: 'chan' })
    cleanups.push(() => chat.close())
    const host = createFakeConnectorHost()
    const config = twitchConnectorSchema.parse({ name: 'stream', channel: 'chan', url: chat.url })
    const connector = createTwitchConnector({ config, host, characterName: 'Nova', logger, backoff })
    cleanups.push(() => connector.close())
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    const lines = fc.sample(ircLine, { numRuns: 300, seed: 5 })
    for (const line of lines) chat.sendRaw(`${line}\r\n`)
    chat.say({ login: 'viewer', text: 'marker', tags: { id: 'marker-id' } })
    await vi.waitFor(() =>
      expect(host.audienceCalls.some((call) => call.messages[0]?.text === 'marker')).toBe(true),
    )
    const status = connector.status()
    expect(status.state).toBe('ready')
    expect(status.malformed?.unreadable).toBeUndefined()
    expect(status.malformed?.not_irc).toBeGreaterThan(0)
    expect(watched.errors).toEqual([])
  })
})

// ---------------------------------------------------------------- Bilibili

const plainPacket = fc.record({
  protocol: fc.constantFrom(0, 1),
  // Not 8, the login's answer: one that is not `code: 0` rightly ends the connection.
  operation: fc.constantFrom(3, 5, 99),
  body: fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
    fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  ),
})
const bombs = [
  createInflationBomb(2 * 1024 * 1024, 2),
  createInflationBomb(6 * 1024 * 1024, 3),
  encodeCompressedPackets(Array(3000).fill({ protocol: 0, operation: 5, body: Buffer.alloc(0) }), 3),
]
/** A frame of whole packets, some compressed (zlib or brotli), some nested, some bombs. */
const wellFramedOf = (withBombs: boolean) =>
  fc
    .array(
      fc.oneof(
        plainPacket.map(encodeDanmakuPacket),
        fc
          .tuple(fc.array(plainPacket, { maxLength: 5 }), fc.constantFrom(2 as const, 3 as const))
          .map(([packets, protocol]) => encodeCompressedPackets(packets, protocol)),
        fc
          .tuple(plainPacket, fc.integer({ min: 1, max: 5 }))
          .map(([packet, levels]) => nestCompressed(encodeDanmakuPacket(packet), levels)),
        ...(withBombs ? [fc.constantFrom(...bombs)] : []),
      ),
      { minLength: 1, maxLength: 4 },
    )
    .map((packets) => Buffer.concat(packets))
/** Random bytes, headers that lie about lengths, frames cut anywhere. */
const danmakuFrameOf = (withBombs: boolean) => {
  const wellFramed = wellFramedOf(withBombs)
  return fc.oneof(
    wellFramed,
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    fc
      .tuple(wellFramed, fc.nat(), fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffff }))
      .map(([frame, at, length, headerLength]) => {
        const copy = Buffer.from(frame)
        const offset = at % Math.max(1, copy.length - 8)
        if (copy.length >= 8) {
          copy.writeUInt32BE(length, offset - (offset % 4))
          copy.writeUInt16BE(headerLength, Math.min(copy.length - 2, offset + 4))
        }
        return copy
      }),
    fc.tuple(wellFramed, fc.nat()).map(([frame, at]) => frame.subarray(0, at % (frame.length + 1))),
  )
}

describe('Bilibili inbound, generated', () => {
  it('reads any frame within its counts, or refuses it with a reason', () => {
    fc.assert(
      fc.property(danmakuFrameOf(true), (frame) => {
        try {
          const read = readDanmakuFrame(frame)
          expect(read.inflatedBytes).toBeLessThanOrEqual(danmakuFrameLimits.maxInflatedBytes)
          expect(read.packetCount).toBeLessThanOrEqual(danmakuFrameLimits.maxPackets)
          expect(read.packets.length).toBeLessThanOrEqual(read.packetCount)
        } catch (error) {
          // Only a named refusal; its cost is counted the same way.
          expect(error).toBeInstanceOf(DanmakuFrameError)
          expect((error as DanmakuFrameError).inflatedBytes).toBeLessThanOrEqual(
            danmakuFrameLimits.maxInflatedBytes,
          )
        }
      }),
      { numRuns: 150 },
    )
  })

  it('reads a few hundred generated frames in a room, counts each refused one, then reads a marker', async () => {
    const watched = watch()
    const room = await startFakeBilibiliLive({ roomId: 21452505, ownerUid: 1000 })
    cleanups.push(() => room.close())
    const host = createFakeConnectorHost()
    const config = bilibiliConnectorSchema.parse({
      name: 'live',
      room_id: 21452505,
      url: room.url,
      api_url: room.apiUrl,
    })
    const connector = createBilibiliConnector({ config, host, characterName: '小雪', logger, backoff })
    cleanups.push(() => connector.close())
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    // No bombs here (they are above): the second's inflation budget is never what refuses these.
    const frames = fc.sample(danmakuFrameOf(false), { numRuns: 250, seed: 3 })
    const refusedByReader = frames.filter((frame) => {
      try {
        readDanmakuFrame(frame)
        return false
      } catch {
        return true
      }
    }).length
    for (const frame of frames) room.sendRaw(frame)
    room.send([danmakuCommand({ uid: 1, idStr: 'marker', text: 'marker' })])
    await vi.waitFor(() =>
      expect(host.audienceCalls.some((call) => call.messages[0]?.text === 'marker')).toBe(true),
    )
    const malformed = connector.status().malformed ?? {}
    const frameReasons = [
      'truncated',
      'too_many_packets',
      'too_deep',
      'inflated_too_large',
      'bad_compression',
    ]
    expect(frameReasons.reduce((total, reason) => total + (malformed[reason] ?? 0), 0)).toBe(refusedByReader)
    expect(malformed.inflation_budget).toBeUndefined()
    expect(malformed.unreadable).toBeUndefined()
    expect(watched.errors).toEqual([])
  })
})
