/**
 * A PNG carrying a card: the picture's chunks with any old card chunks taken out and the new `chara`
 * (V2, for older readers) and `ccv3` (V3) text chunks put before IEND, as SillyTavern writes them.
 * The picture's own chunks are copied as they are.
 */
import { computeCrc32 } from './compute-crc32.js'
import { cardChunkKeywords, readTextKeyword } from './read-card-png.js'
import { pngSignature, readPngChunks } from './read-png-chunks.js'

export interface WriteCardPngOptions {
  image: Uint8Array
  /** The V3 card as JSON. */
  ccv3: string
  /** The V2 card as JSON. */
  chara: string
}

/** A tEXt chunk `keyword\0base64(json)`: base64 keeps the text within tEXt's Latin-1. */
function encodeCardChunk(keyword: string, json: string): Uint8Array {
  const data = Buffer.from(`${keyword}\0${Buffer.from(json, 'utf8').toString('base64')}`, 'latin1')
  const type = Buffer.from('tEXt', 'latin1')
  const chunk = Buffer.alloc(12 + data.length)
  chunk.writeUInt32BE(data.length, 0)
  type.copy(chunk, 4)
  data.copy(chunk, 8)
  chunk.writeUInt32BE(computeCrc32(type, data), 8 + data.length)
  return chunk
}

export function writeCardPng({ image, ccv3, chara }: WriteCardPngOptions): Uint8Array {
  const chunks = readPngChunks(image).filter((chunk) => {
    const keyword = readTextKeyword(chunk)
    return !(keyword && cardChunkKeywords.has(keyword))
  })
  const end = chunks.pop()!
  return Buffer.concat([
    pngSignature,
    ...chunks.map((chunk) => chunk.bytes),
    encodeCardChunk('chara', chara),
    encodeCardChunk('ccv3', ccv3),
    end.bytes,
  ])
}
