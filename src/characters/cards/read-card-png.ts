/**
 * The card inside a PNG: the base64 JSON of a `ccv3` tEXt chunk (V3), else of a `chara` chunk (V2),
 * as SillyTavern, RisuAI and Chub write them. Also returns the picture without those chunks, which
 * becomes the character's avatar (keeping them would store the card twice).
 */

import { decode as decodeTextChunk } from 'png-chunk-text'
import encodeChunks from 'png-chunks-encode'
import extractChunks from 'png-chunks-extract'
import { BadRequestError } from '../../shared/errors.js'

export interface ReadCardPngResult {
  /** The card's JSON text. */
  json: string
  /** Which chunk it came from. */
  chunk: 'ccv3' | 'chara'
  /** The PNG without its card chunks. */
  image: Uint8Array
}

const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
export const cardChunkKeywords = new Set(['ccv3', 'chara'])

type Chunk = { name: string; data: Uint8Array }

/**
 * Walks the chunk lengths before the library reads them: it allocates what each chunk declares, so
 * a few bytes declaring 4 GB would otherwise cost that much memory before failing.
 */
function checkChunkLengths(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let offset = signature.length
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset)
    const end = offset + 12 + length
    if (end > bytes.length) throw new BadRequestError('bad PNG: a chunk runs past the end of the file')
    if (String.fromCharCode(...bytes.subarray(offset + 4, offset + 8)) === 'IEND') return
    offset = end
  }
  throw new BadRequestError('bad PNG: the file ended before its IEND chunk')
}

function readChunks(bytes: Uint8Array): Chunk[] {
  if (bytes.length < signature.length || signature.some((byte, index) => bytes[index] !== byte))
    throw new BadRequestError('bad PNG: the file does not start with the PNG signature')
  checkChunkLengths(bytes)
  try {
    return extractChunks(bytes)
  } catch (error) {
    throw new BadRequestError(`bad PNG: ${(error as Error).message}`, { cause: error })
  }
}

function keywordOf(chunk: Chunk): string | undefined {
  if (chunk.name !== 'tEXt') return undefined
  const end = chunk.data.indexOf(0)
  return end < 0 ? undefined : String.fromCharCode(...chunk.data.subarray(0, Math.min(end, 80)))
}

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

function decodeCardText(chunk: Chunk, keyword: string): string {
  let text: string
  try {
    text = decodeTextChunk(chunk.data).text.replace(/\s+/g, '')
  } catch (error) {
    throw new BadRequestError(`bad PNG: the ${keyword} chunk: ${(error as Error).message}`, { cause: error })
  }
  if (!base64Pattern.test(text) || text.length % 4 === 1)
    throw new BadRequestError(`the ${keyword} chunk is not base64`)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'))
  } catch (error) {
    throw new BadRequestError(`the ${keyword} chunk is not base64 of UTF-8 text`, { cause: error })
  }
}

export function readCardPng(bytes: Uint8Array): ReadCardPngResult {
  const chunks = readChunks(bytes)
  const found = new Map<string, Chunk>()
  const kept: Chunk[] = []
  for (const chunk of chunks) {
    const keyword = keywordOf(chunk)
    if (keyword && cardChunkKeywords.has(keyword)) {
      if (!found.has(keyword)) found.set(keyword, chunk)
    } else kept.push(chunk)
  }
  const chunk = found.has('ccv3') ? 'ccv3' : found.has('chara') ? 'chara' : undefined
  if (!chunk) throw new BadRequestError('the PNG carries no character card (no "chara" or "ccv3" text chunk)')
  return { json: decodeCardText(found.get(chunk)!, chunk), chunk, image: encodeChunks(kept) }
}
