/**
 * Inputs that once ended or stalled the process, as they arrived: a OneBot event converted outside
 * any guard (a `null` segment, a message id that is an object, a private message of junk) and a
 * Bilibili frame of about 2,400 bytes whose nested compressed packets inflated without a bound for
 * the frame. Each is now a counted refusal, and the connector reads on.
 */
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bilibiliConnectorSchema, onebotConnectorSchema } from '../../src/config/schema.js'
import { createBilibiliConnector } from '../../src/connectors/bilibili/create-bilibili-connector.js'
import {
  DanmakuFrameError,
  danmakuFrameLimits,
  readDanmakuFrame,
} from '../../src/connectors/bilibili/danmaku-packet.js'
import { createOnebotConnector } from '../../src/connectors/onebot/create-onebot-connector.js'
import { createLogger } from '../../src/shared/logger.js'
import { createManualClock } from '../../src/testing/index.js'
import { danmakuCommand } from './__fixtures__/bilibili-commands.js'
import { createNestedBombFrame } from './__fixtures__/danmaku-bombs.js'
import { startFakeBilibiliLive } from './fake-bilibili-live.js'
import { createFakeConnectorHost } from './fake-connector-host.js'
import { startFakeOnebot } from './fake-onebot-implementation.js'
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

const groupEvent = (fields: Record<string, unknown>) =>
  JSON.stringify({
    time: 1,
    self_id: 10001,
    post_type: 'message',
    message_type: 'group',
    message_id: 700,
    group_id: 123,
    user_id: 42,
    message: [{ type: 'text', data: { text: 'hi' } }],
    sender: { nickname: 'a', role: 'member' },
    ...fields,
  })

const privateEvent = (fields: Record<string, unknown>) =>
  JSON.stringify({
    time: 1,
    self_id: 10001,
    post_type: 'message',
    message_type: 'private',
    message_id: 800,
    user_id: 77,
    message: [null],
    sender: { nickname: 'b' },
    ...fields,
  })

async function connectForward() {
  const fake = await startFakeOnebot({ accessToken: 'group-token' })
  cleanups.push(() => fake.close())
  const host = createFakeConnectorHost()
  const config = onebotConnectorSchema.parse({
    name: 'qq',
    url: fake.url,
    access_token: 'group-token',
    groups: [123],
    private: true,
  })
  const connector = createOnebotConnector({ config, host, characterName: '小雪', logger, backoff })
  cleanups.push(() => connector.close())
  await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
  await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
  return { fake, host, connector }
}

describe('OneBot events that ended the process', () => {
  it('refuses, on the forward link, a group message holding null and one whose message id is an object', async () => {
    const watched = watch()
    const { fake, host, connector } = await connectForward()
    fake.sendRaw(groupEvent({ message_id: 701, message: [null] }))
    fake.sendRaw(groupEvent({ message_id: { toString: 1 } }))
    fake.sendRaw(privateEvent({}))
    fake.sendGroupMessage({ groupId: 123, userId: 9, message: 'after' })
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.messages[0]?.text).toBe('after')
    expect(host.runCalls).toHaveLength(0)
    expect(connector.status()).toMatchObject({
      state: 'ready',
      messages_in: 1,
      malformed: { no_segments: 2, no_message_id: 1 },
    })
    expect(watched.errors).toEqual([])
  })

  it('refuses, on the reverse link, a private message holding null', async () => {
    const watched = watch()
    const host = createFakeConnectorHost()
    const config = onebotConnectorSchema.parse({
      name: 'qq',
      listen: '/onebot/qq',
      access_token: 'group-token',
      groups: [123],
      private: true,
    })
    const connector = createOnebotConnector({ config, host, characterName: '小雪', logger, backoff })
    cleanups.push(() => connector.close())
    const sent: string[] = []
    const link = connector.attachReverse({ send: (text) => sent.push(text), close: () => {} }, '10001')
    link.receive(privateEvent({}))
    link.receive(privateEvent({ message_id: 801, message: [null, { type: 'text', data: null }] }))
    link.receive(privateEvent({ message_id: 802, message: [{ type: 'text', data: { text: '在吗' } }] }))
    await vi.waitFor(() => expect(host.runCalls).toHaveLength(1))
    expect(host.runCalls[0]).toMatchObject({ session: 'onebot:qq:private:77', text: '在吗' })
    expect(connector.status().malformed).toEqual({ no_segments: 1 })
    expect(watched.errors).toEqual([])
  })
})

describe('the Bilibili frame of 2,400 bytes that held the event loop', () => {
  it('is refused once its packets together inflate past the frame allowance', () => {
    const frame = createNestedBombFrame()
    expect(frame.length).toBeLessThanOrEqual(2400)
    let refusal: unknown
    try {
      readDanmakuFrame(frame)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(DanmakuFrameError)
    expect(refusal).toMatchObject({ reason: 'inflated_too_large' })
    // Work counted, not timed: never more inflated than the frame's allowance.
    expect((refusal as DanmakuFrameError).inflatedBytes).toBeLessThanOrEqual(
      danmakuFrameLimits.maxInflatedBytes,
    )
  })

  it('costs a connection one counted refusal, and the next danmaku is read', async () => {
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
    room.sendRaw(createNestedBombFrame())
    room.send([danmakuCommand({ uid: 1, idStr: 'after', text: '还在吗' })])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(host.audienceCalls[0]?.messages[0]?.text).toBe('还在吗')
    expect(connector.status().malformed).toEqual({ inflated_too_large: 1 })
    expect(watched.errors).toEqual([])
  })
})

describe('a flood of malformed danmaku frames', () => {
  it('writes a warning per reason per interval, not one per frame, and counts each', async () => {
    const lines: string[] = []
    const lineLogger = createLogger({
      level: 'warn',
      format: 'json',
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk))
          done()
        },
      }),
    })
    const room = await startFakeBilibiliLive({ roomId: 21452505, ownerUid: 1000 })
    cleanups.push(() => room.close())
    const host = createFakeConnectorHost()
    const config = bilibiliConnectorSchema.parse({
      name: 'live',
      room_id: 21452505,
      url: room.url,
      api_url: room.apiUrl,
    })
    const connector = createBilibiliConnector({
      config,
      host,
      characterName: '小雪',
      logger: lineLogger,
      backoff,
      // The warnings' interval is read from this clock: it never passes while the flood arrives.
      clock: createManualClock(),
    })
    cleanups.push(() => connector.close())
    await vi.waitFor(() => expect(connector.status().state).toBe('ready'))
    const frames = Array.from({ length: 3000 }, (_, index) =>
      // A header that claims more bytes than the frame holds, and a packet of command junk.
      index % 2 === 0
        ? Buffer.from([0, 0, 1, 0, 0, 16, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1])
        : Buffer.concat([
            Buffer.from([0, 0, 0, 19, 0, 16, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1]),
            Buffer.from('{x]'),
          ]),
    )
    for (const frame of frames) room.sendRaw(frame)
    room.send([danmakuCommand({ uid: 1, idStr: 'after-flood', text: '刷屏之后' })])
    await vi.waitFor(() => expect(host.audienceCalls).toHaveLength(1))
    expect(connector.status().malformed).toEqual({ truncated: 1500, not_json: 1500 })
    const warnings = lines.filter((line) => line.includes('cannot be read'))
    expect(warnings).toHaveLength(2)
  })
})
