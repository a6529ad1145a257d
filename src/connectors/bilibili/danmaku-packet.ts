/**
 * Bilibili's danmaku packet format: a 16-byte big-endian header (packet length, header length 16,
 * protocol version, operation, sequence 1) and a body. Protocol 0 is a plain JSON body, 1 a 4-byte
 * number (the heartbeat reply), 2 a zlib-deflated and 3 a brotli-compressed body that itself holds
 * one or more whole packets. One WebSocket frame may carry several packets back to back.
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

/** Bodies larger than this after decompression are refused: a frame is never allowed to balloon. */
const maxInflatedBytes = 16 * 1024 * 1024

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

/**
 * Every plain packet in a frame, compressed bodies opened (they may nest). Throws a clear error on a
 * header that does not fit the frame, so a broken frame is named, not read past its end.
 */
export function decodeDanmakuFrame(frame: Buffer, depth = 0): DanmakuPacket[] {
  const packets: DanmakuPacket[] = []
  let offset = 0
  while (offset < frame.length) {
    if (frame.length - offset < danmakuHeaderBytes)
      throw new Error(`a danmaku packet header needs 16 bytes, ${frame.length - offset} left`)
    const packetLength = frame.readUInt32BE(offset)
    const headerLength = frame.readUInt16BE(offset + 4)
    if (
      headerLength < danmakuHeaderBytes ||
      packetLength < headerLength ||
      offset + packetLength > frame.length
    )
      throw new Error(
        `a danmaku packet claims ${packetLength} bytes (header ${headerLength}) where ${frame.length - offset} remain`,
      )
    const protocol = frame.readUInt16BE(offset + 6)
    const operation = frame.readUInt32BE(offset + 8)
    const body = frame.subarray(offset + headerLength, offset + packetLength)
    offset += packetLength
    if (protocol === DanmakuProtocol.zlib || protocol === DanmakuProtocol.brotli) {
      if (depth > 2) throw new Error('danmaku packets nested too deep')
      const inner =
        protocol === DanmakuProtocol.zlib
          ? inflateSync(body, { maxOutputLength: maxInflatedBytes })
          : brotliDecompressSync(body, { maxOutputLength: maxInflatedBytes })
      packets.push(...decodeDanmakuFrame(inner, depth + 1))
    } else packets.push({ protocol, operation, body })
  }
  return packets
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
