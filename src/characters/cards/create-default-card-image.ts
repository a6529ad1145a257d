/**
 * The picture of a card exported from a character without a PNG avatar: a 128×128 head-and-shoulders
 * silhouette, drawn here so no binary file ships for it. Made once, on first use.
 */
import { createRequire } from 'node:module'
import { computeCrc32 } from './compute-crc32.js'
import { pngSignature } from './read-png-chunks.js'

// node:zlib loads with the first picture made, not with `import('charpipe')`.
const require = createRequire(import.meta.url)

const size = 128
const background = [0xdd, 0xe3, 0xea]
const figure = [0x8a, 0x97, 0xa8]

let image: Uint8Array | undefined

function isFigure(x: number, y: number): boolean {
  const head = (x - 64) ** 2 + (y - 50) ** 2 <= 24 ** 2
  const shoulders = y >= 84 && (x - 64) ** 2 / 48 ** 2 + (y - 128) ** 2 / 44 ** 2 <= 1
  return head || shoulders
}

function encodeChunk(type: string, data: Uint8Array): Buffer {
  const chunk = Buffer.alloc(12 + data.length)
  chunk.writeUInt32BE(data.length, 0)
  chunk.write(type, 4, 'latin1')
  chunk.set(data, 8)
  chunk.writeUInt32BE(computeCrc32(chunk.subarray(4, 8), data), 8 + data.length)
  return chunk
}

function headerData(): Uint8Array {
  const data = Buffer.alloc(13)
  data.writeUInt32BE(size, 0)
  data.writeUInt32BE(size, 4)
  data.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, deflate, no filter method, no interlace
  return data
}

export function createDefaultCardImage(): Uint8Array {
  if (image) return image
  const rows = new Uint8Array(size * (1 + size * 3))
  let offset = 0
  for (let y = 0; y < size; y++) {
    rows[offset++] = 0 // filter: none
    for (let x = 0; x < size; x++) {
      rows.set(isFigure(x, y) ? figure : background, offset)
      offset += 3
    }
  }
  image = Buffer.concat([
    pngSignature,
    encodeChunk('IHDR', headerData()),
    encodeChunk('IDAT', (require('node:zlib') as typeof import('node:zlib')).deflateSync(rows)),
    encodeChunk('IEND', new Uint8Array(0)),
  ])
  return image
}
