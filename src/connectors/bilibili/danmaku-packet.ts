/**
 * Bilibili's danmaku packet format: a 16-byte big-endian header (packet length, header length 16,
 * protocol version, operation, sequence 1) and a body. Protocol 0 is a plain JSON body, 1 a 4-byte
 * number (the heartbeat reply), 2 a zlib-deflated and 3 a brotli-compressed body that itself holds
 * one or more whole packets. One WebSocket frame may carry several packets back to back. Reading a
 * frame is bounded by its limits (`danmakuFrameLimits`), not by what its headers claim.
 */
import { brotliCompressSync, brotliDecompressSync, deflateSync, inflateSync } from 'node:zlib'

const danmakuHeaderBytes = 16

export const DanmakuOperation = {
  heartbeat: 2,
  heartbeatReply: 3,
  command: 5,
  auth: 7,
  authReply: 8,
} as const

export const DanmakuProtocol = { json: 0, number: 1, zlib: 2, brotli: 3 } as const

export interface DanmakuPacket {
  protocol: number
  operation: number
  body: Buffer
}

/**
 * What one frame may cost to read, whatever it holds: the bytes all its compressed bodies inflate to
 * together (every packet and every nesting level counted), the packets it may hold (compressed ones
 * included) and how deep compressed packets may nest. A frame past any of them is refused whole.
 */
export interface DanmakuFrameLimits {
  maxInflatedBytes: number
  maxPackets: number
  maxDepth: number
}

/**
 * Bilibili's server sends a busy room's commands as one brotli packet of a few dozen kilobytes;
 * these leave that a hundredfold room and keep a crafted frame (a small one can otherwise hold
 * thousands of nested bombs) to a few milliseconds of inflation.
 */
export const danmakuFrameLimits: DanmakuFrameLimits = {
  maxInflatedBytes: 4 * 1024 * 1024,
  maxPackets: 2000,
  // The server nests once (a compressed packet of plain ones); twice more is left for a change of its.
  maxDepth: 3,
}

/** Why a frame was refused: a short code for counts and log lines, and the detail. */
export class DanmakuFrameError extends Error {
  constructor(
    readonly reason: 'truncated' | 'too_many_packets' | 'too_deep' | 'inflated_too_large' | 'bad_compression',
    message: string,
    /** Bytes inflated before it was refused (a bomb: the whole allowance). */
    readonly inflatedBytes = 0,
  ) {
    super(message)
    this.name = 'DanmakuFrameError'
  }
}

export interface DecodedDanmakuFrame {
  packets: DanmakuPacket[]
  /** Bytes inflated, all levels together: never more than the limits' `maxInflatedBytes`. */
  inflatedBytes: number
  /** Headers read, compressed packets included: never more than the limits' `maxPackets`. */
  packetCount: number
}

export function encodeDanmakuPacket(packet: DanmakuPacket): Buffer {
  const header = Buffer.alloc(danmakuHeaderBytes)
  header.writeUInt32BE(danmakuHeaderBytes + packet.body.length, 0)
  header.writeUInt16BE(danmakuHeaderBytes, 4)
  header.writeUInt16BE(packet.protocol, 6)
  header.writeUInt32BE(packet.operation, 8)
  header.writeUInt32BE(1, 12)
  return Buffer.concat([header, packet.body])
}

/** Packs plain packets into one compressed packet, as Bilibili's server sends busy rooms' commands. */
export function encodeCompressedPackets(packets: DanmakuPacket[], protocol: 2 | 3): Buffer {
  const inner = Buffer.concat(packets.map(encodeDanmakuPacket))
  const body = protocol === DanmakuProtocol.zlib ? deflateSync(inner) : brotliCompressSync(inner)
  return encodeDanmakuPacket({ protocol, operation: DanmakuOperation.command, body })
}

/** Every plain packet in a frame, compressed bodies opened; throws a `DanmakuFrameError` past a limit. */
export function decodeDanmakuFrame(
  frame: Buffer,
  limits: DanmakuFrameLimits = danmakuFrameLimits,
): DanmakuPacket[] {
  return readDanmakuFrame(frame, limits).packets
}

/**
 * Every plain packet in a frame, compressed bodies opened (they may nest), in order, with what
 * reading it cost. Throws a `DanmakuFrameError` naming a header that does not fit the frame (so a
 * broken frame is never read past its end) or a limit passed; each inflation is capped at what is
 * left of the frame's allowance, so a bomb stops at that many bytes, not at its own size.
 */
export function readDanmakuFrame(
  frame: Buffer,
  limits: DanmakuFrameLimits = danmakuFrameLimits,
): DecodedDanmakuFrame {
  const packets: DanmakuPacket[] = []
  let inflatedBytes = 0
  let packetCount = 0
  // Iterative, so nesting costs no stack; each entry is a buffer still to read and its depth.
  const pending: { buffer: Buffer; offset: number; depth: number }[] = [
    { buffer: frame, offset: 0, depth: 0 },
  ]
  while (pending.length > 0) {
    const current = pending[pending.length - 1]!
    const { buffer, depth } = current
    if (current.offset >= buffer.length) {
      pending.pop()
      continue
    }
    const offset = current.offset
    if (buffer.length - offset < danmakuHeaderBytes)
      throw new DanmakuFrameError(
        'truncated',
        `a danmaku packet header needs 16 bytes, ${buffer.length - offset} left`,
        inflatedBytes,
      )
    const packetLength = buffer.readUInt32BE(offset)
    const headerLength = buffer.readUInt16BE(offset + 4)
    if (
      headerLength < danmakuHeaderBytes ||
      packetLength < headerLength ||
      offset + packetLength > buffer.length
    )
      throw new DanmakuFrameError(
        'truncated',
        `a danmaku packet claims ${packetLength} bytes (header ${headerLength}) where ${buffer.length - offset} remain`,
        inflatedBytes,
      )
    packetCount += 1
    if (packetCount > limits.maxPackets)
      throw new DanmakuFrameError(
        'too_many_packets',
        `a danmaku frame holds more than ${limits.maxPackets} packets`,
        inflatedBytes,
      )
    const protocol = buffer.readUInt16BE(offset + 6)
    const operation = buffer.readUInt32BE(offset + 8)
    const body = buffer.subarray(offset + headerLength, offset + packetLength)
    current.offset = offset + packetLength
    if (protocol !== DanmakuProtocol.zlib && protocol !== DanmakuProtocol.brotli) {
      packets.push({ protocol, operation, body })
      continue
    }
    if (depth + 1 > limits.maxDepth)
      throw new DanmakuFrameError(
        'too_deep',
        `danmaku packets nested more than ${limits.maxDepth} deep`,
        inflatedBytes,
      )
    const inner = inflateBody(body, protocol, limits.maxInflatedBytes - inflatedBytes, inflatedBytes)
    inflatedBytes += inner.length
    pending.push({ buffer: inner, offset: 0, depth: depth + 1 })
  }
  return { packets, inflatedBytes, packetCount }
}

function inflateBody(body: Buffer, protocol: number, allowance: number, inflatedBefore: number): Buffer {
  // zlib refuses a `maxOutputLength` below 1; an allowance spent is a frame too large all the same.
  const maxOutputLength = Math.max(1, allowance)
  try {
    const inner =
      protocol === DanmakuProtocol.zlib
        ? inflateSync(body, { maxOutputLength })
        : brotliDecompressSync(body, { maxOutputLength })
    if (inner.length > allowance) throw Object.assign(new Error('over'), { code: 'ERR_BUFFER_TOO_LARGE' })
    return inner
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new DanmakuFrameError(
        'inflated_too_large',
        `a danmaku frame inflates past ${inflatedBefore + allowance} bytes (its compressed bodies together)`,
        inflatedBefore + allowance,
      )
    throw new DanmakuFrameError(
      'bad_compression',
      `a danmaku packet's ${protocol === DanmakuProtocol.zlib ? 'zlib' : 'brotli'} body could not be inflated`,
      inflatedBefore,
    )
  }
}

/** The auth packet (operation 7) that must be the first thing sent on a new connection. */
export function encodeAuthPacket(auth: {
  roomId: number
  uid: number
  token: string
  buvid: string
}): Buffer {
  const body = {
    uid: auth.uid,
    roomid: auth.roomId,
    protover: DanmakuProtocol.brotli,
    platform: 'web',
    type: 2,
    ...(auth.buvid !== '' ? { buvid: auth.buvid } : {}),
    ...(auth.token !== '' ? { key: auth.token } : {}),
  }
  return encodeDanmakuPacket({
    protocol: DanmakuProtocol.number,
    operation: DanmakuOperation.auth,
    body: Buffer.from(JSON.stringify(body)),
  })
}

/** The heartbeat (operation 2), sent every 30 s; the server closes a connection that stops sending it. */
export function encodeHeartbeatPacket(): Buffer {
  return encodeDanmakuPacket({
    protocol: DanmakuProtocol.number,
    operation: DanmakuOperation.heartbeat,
    // What Bilibili's own web client sends; the server reads only the operation.
    body: Buffer.from('[object Object]'),
  })
}
