/**
 * The picture of a card exported from a character without a PNG avatar: a 128×128 head-and-shoulders
 * silhouette, drawn here so no binary file ships for it. Made once, on first use.
 */
import { deflateSync } from 'node:zlib'
import encodeChunks from 'png-chunks-encode'

const size = 128
const background = [0xdd, 0xe3, 0xea]
const figure = [0x8a, 0x97, 0xa8]

let image: Uint8Array | undefined

function isFigure(x: number, y: number): boolean {
  const head = (x - 64) ** 2 + (y - 50) ** 2 <= 24 ** 2
  const shoulders = y >= 84 && (x - 64) ** 2 / 48 ** 2 + (y - 128) ** 2 / 44 ** 2 <= 1
  return head || shoulders
}

function headerChunk(): { name: string; data: Uint8Array } {
  const data = new Uint8Array(13)
  const view = new DataView(data.buffer)
  view.setUint32(0, size)
  view.setUint32(4, size)
  data.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, deflate, no filter method, no interlace
  return { name: 'IHDR', data }
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
  image = encodeChunks([
    headerChunk(),
    { name: 'IDAT', data: new Uint8Array(deflateSync(rows)) },
    { name: 'IEND', data: new Uint8Array(0) },
  ])
  return image
}
