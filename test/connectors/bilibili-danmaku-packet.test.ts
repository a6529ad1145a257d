import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createDanmakuFrameReader } from '../../src/connectors/bilibili/create-danmaku-frame-reader.js'
import {
  type DanmakuFrameError,
  DanmakuOperation,
  DanmakuProtocol,
  danmakuFrameLimits,
  decodeDanmakuFrame,
  encodeAuthPacket,
  encodeCompressedPackets,
  encodeDanmakuPacket,
  encodeHeartbeatPacket,
  readDanmakuFrame,
} from '../../src/connectors/bilibili/danmaku-packet.js'
import { createInflationBomb, nestCompressed } from './__fixtures__/danmaku-bombs.js'

const plainPacket = fc.record({
  protocol: fc.constantFrom(DanmakuProtocol.json, DanmakuProtocol.number),
  operation: fc.constantFrom(2, 3, 5, 7, 8),
  body: fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)),
})

describe('danmaku packets', () => {
  it('writes the 16-byte big-endian header Bilibili reads', () => {
    const packet = encodeDanmakuPacket({ protocol: 0, operation: 5, body: Buffer.from('{"cmd":"LIVE"}') })
    expect(packet.subarray(0, 16).toString('hex')).toBe('0000001e001000000000000500000001')
    const heartbeat = encodeHeartbeatPacket()
    expect(heartbeat.readUInt16BE(6)).toBe(1)
    expect(heartbeat.readUInt32BE(8)).toBe(DanmakuOperation.heartbeat)
    const auth = decodeDanmakuFrame(
      encodeAuthPacket({ roomId: 21452505, uid: 42, token: 'tok', buvid: 'b3' }),
    )
    expect(auth).toHaveLength(1)
    expect(auth[0]?.operation).toBe(DanmakuOperation.auth)
    expect(JSON.parse(auth[0]?.body.toString() ?? '')).toEqual({
      uid: 42,
      roomid: 21452505,
      protover: 3,
      platform: 'web',
      type: 2,
      buvid: 'b3',
      key: 'tok',
    })
  })

  it('reads back any run of packets sent in one frame, plain', () => {
    fc.assert(
      fc.property(fc.array(plainPacket, { minLength: 1, maxLength: 12 }), (packets) => {
        const frame = Buffer.concat(packets.map(encodeDanmakuPacket))
        expect(decodeDanmakuFrame(frame)).toEqual(packets)
      }),
    )
  })

  it('reads back packets inside zlib (2) and brotli (3) bodies, mixed with plain ones in the same frame', () => {
    fc.assert(
      fc.property(
        fc.array(plainPacket, { minLength: 1, maxLength: 8 }),
        fc.array(plainPacket, { maxLength: 3 }),
        fc.constantFrom(2 as const, 3 as const),
        (inner, outer, protocol) => {
          const frame = Buffer.concat([
            encodeCompressedPackets(inner, protocol),
            ...outer.map(encodeDanmakuPacket),
          ])
          expect(decodeDanmakuFrame(frame)).toEqual([...inner, ...outer])
        },
      ),
      { numRuns: 60 },
    )
  })

  it('names a frame cut short or a header that claims more than there is, at any cut', () => {
    fc.assert(
      fc.property(fc.array(plainPacket, { minLength: 1, maxLength: 4 }), fc.nat(), (packets, at) => {
        const frame = Buffer.concat(packets.map(encodeDanmakuPacket))
        const cut = 1 + (at % (frame.length - 1))
        // A cut at a packet boundary is a shorter, whole frame; anywhere else it is refused by name.
        const boundaries = new Set<number>()
        let offset = 0
        for (const packet of packets) {
          offset += 16 + packet.body.length
          boundaries.add(offset)
        }
        if (boundaries.has(cut)) expect(() => decodeDanmakuFrame(frame.subarray(0, cut))).not.toThrow()
        else expect(() => decodeDanmakuFrame(frame.subarray(0, cut))).toThrow(/danmaku packet/)
      }),
    )
  })

  it('refuses a compressed body that is not what its protocol says', () => {
    const bogus = encodeDanmakuPacket({ protocol: 2, operation: 5, body: Buffer.from('not zlib') })
    expect(() => decodeDanmakuFrame(bogus)).toThrow()
  })
})

describe('what reading one frame may cost', () => {
  const plain = (body: string) => ({ protocol: 0, operation: 5, body: Buffer.from(body) })
  const limits = { maxInflatedBytes: 64 * 1024, maxPackets: 50, maxDepth: 3 }

  it('opens packets nested as deep as the bound, and refuses one level deeper', () => {
    const inner = encodeDanmakuPacket(plain('{"cmd":"LIVE"}'))
    expect(decodeDanmakuFrame(nestCompressed(inner, limits.maxDepth), limits)).toEqual([
      plain('{"cmd":"LIVE"}'),
    ])
    expect(() => decodeDanmakuFrame(nestCompressed(inner, limits.maxDepth + 1), limits)).toThrow(
      expect.objectContaining({ reason: 'too_deep' }),
    )
    // The default bound holds as well: a frame nested past it is refused, however small.
    expect(() => decodeDanmakuFrame(nestCompressed(inner, danmakuFrameLimits.maxDepth + 1))).toThrow(
      expect.objectContaining({ reason: 'too_deep' }),
    )
    expect(decodeDanmakuFrame(nestCompressed(inner, danmakuFrameLimits.maxDepth))).toHaveLength(1)
  })

  it('counts every packet of the frame, compressed ones and the ones inside them', () => {
    const packets = Array.from({ length: limits.maxPackets }, (_, index) => plain(String(index)))
    expect(decodeDanmakuFrame(Buffer.concat(packets.map(encodeDanmakuPacket)), limits)).toHaveLength(50)
    expect(() =>
      decodeDanmakuFrame(Buffer.concat([...packets, plain('one more')].map(encodeDanmakuPacket)), limits),
    ).toThrow(expect.objectContaining({ reason: 'too_many_packets' }))
    // The compressed packet is a packet too: 50 inside it and itself are 51.
    expect(() => decodeDanmakuFrame(encodeCompressedPackets(packets, 3), limits)).toThrow(
      expect.objectContaining({ reason: 'too_many_packets' }),
    )
  })

  it('holds all compressed bodies of a frame to one allowance, each within it on its own', () => {
    const bomb = createInflationBomb(40 * 1024, 2)
    expect(readDanmakuFrame(bomb, limits).inflatedBytes).toBe(40 * 1024)
    let refusal: DanmakuFrameError | undefined
    try {
      readDanmakuFrame(Buffer.concat([bomb, createInflationBomb(40 * 1024, 3)]), limits)
    } catch (error) {
      refusal = error as DanmakuFrameError
    }
    expect(refusal?.reason).toBe('inflated_too_large')
    expect(refusal?.inflatedBytes).toBeLessThanOrEqual(limits.maxInflatedBytes)
  })

  it('holds one connection to its inflated bytes per second, and starts over the next second', () => {
    let now = 5000
    const reader = createDanmakuFrameReader({
      now: () => now,
      limits,
      maxInflatedBytesPerSecond: 100 * 1024,
    })
    const frame = createInflationBomb(40 * 1024, 3)
    expect(reader.read(frame)).toMatchObject({ ok: true, inflatedBytes: 40 * 1024 })
    expect(reader.read(frame)).toMatchObject({ ok: true })
    // 20 KiB are left of the second: this frame needs 40.
    expect(reader.read(frame)).toMatchObject({ ok: false, reason: 'inflation_budget' })
    expect(reader.read(encodeDanmakuPacket(plain('{}')))).toMatchObject({
      ok: false,
      reason: 'inflation_budget',
    })
    now += 1000
    expect(reader.read(frame)).toMatchObject({ ok: true })
  })
})
