/**
 * A PNG carrying a card: the picture's chunks with any old card chunks taken out and the new `ccv3`
 * (V3) and `chara` (V2, for older readers) text chunks put before IEND, as SillyTavern writes them.
 */

import { encode as encodeTextChunk } from 'png-chunk-text'
import encodeChunks from 'png-chunks-encode'
import extractChunks from 'png-chunks-extract'
import { cardChunkKeywords } from './read-card-png.js'

export interface WriteCardPngOptions {
  image: Uint8Array
  /** The V3 card as JSON. */
  ccv3: string
  /** The V2 card as JSON. */
  chara: string
}

function isCardChunk(chunk: { name: string; data: Uint8Array }): boolean {
  if (chunk.name !== 'tEXt') return false
  const end = chunk.data.indexOf(0)
  return end > 0 && cardChunkKeywords.has(Buffer.from(chunk.data.subarray(0, end)).toString('latin1'))
}

export function writeCardPng({ image, ccv3, chara }: WriteCardPngOptions): Uint8Array {
  const chunks = extractChunks(image).filter((chunk) => !isCardChunk(chunk))
  const base64 = (json: string) => Buffer.from(json, 'utf8').toString('base64')
  chunks.splice(-1, 0, encodeTextChunk('chara', base64(chara)), encodeTextChunk('ccv3', base64(ccv3)))
  return encodeChunks(chunks)
}
