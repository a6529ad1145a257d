/**
 * Danmaku frames made to cost far more to read than they weigh: compressed packets of compressed
 * packets, each inner one inflating to nearly 16 MiB. Read with only a per-packet cap, the small
 * frame of `createNestedBombFrame` inflates many gigabytes and holds the event loop for minutes.
 */
import { brotliCompressSync, constants, deflateSync } from 'node:zlib'
import { DanmakuProtocol, encodeDanmakuPacket } from '../../../src/connectors/bilibili/danmaku-packet.js'

// Quality 5: the frame is built in tens of milliseconds and still weighs under 2.4 KB.
const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }
const nearly16MiB = 16 * 1024 * 1024 - 64

function compress(inner: Buffer, protocol: 2 | 3): Buffer {
  const body = protocol === 2 ? deflateSync(inner, { level: 9 }) : brotliCompressSync(inner, brotliOptions)
  return encodeDanmakuPacket({ protocol, operation: 5, body })
}

/** One packet whose body inflates to `bytes` of a plain packet of zeros. */
export function createInflationBomb(bytes: number, protocol: 2 | 3 = 3): Buffer {
  const plain = encodeDanmakuPacket({
    protocol: DanmakuProtocol.number,
    operation: 3,
    body: Buffer.alloc(bytes - 16),
  })
  return compress(plain, protocol)
}

/**
 * About 2,400 bytes: a dozen brotli packets, each holding some 300,000 packets that each inflate
 * to nearly 16 MiB.
 */
export function createNestedBombFrame(): Buffer {
  const bomb = createInflationBomb(nearly16MiB)
  const outer = compress(Buffer.concat(Array(Math.floor(nearly16MiB / bomb.length)).fill(bomb)), 3)
  return Buffer.concat(Array(Math.floor(2400 / outer.length)).fill(outer))
}

/** `inner` wrapped `levels` times in compressed packets, zlib and brotli in turn. */
export function nestCompressed(inner: Buffer, levels: number): Buffer {
  let frame = inner
  for (let level = 0; level < levels; level += 1) frame = compress(frame, level % 2 === 0 ? 2 : 3)
  return frame
}
