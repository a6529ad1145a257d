/**
 * The card inside a PNG: the base64 JSON of a `ccv3` tEXt chunk (V3), else of a `chara` chunk (V2),
 * as SillyTavern, RisuAI and Chub write them. Also returns the picture without those chunks, which
 * becomes the character's avatar (keeping them would store the card twice).
 */
import { BadRequestError } from '../../shared/errors.js'
import { computeCrc32 } from './compute-crc32.js'
import { type PngChunk, pngSignature, readPngChunks } from './read-png-chunks.js'

export interface ReadCardPngResult {
  /** The card's JSON text. */
  json: string
  /** Which chunk it came from. */
  chunk: 'ccv3' | 'chara'
  /** The PNG without its card chunks. */
  image: Uint8Array
}

export const cardChunkKeywords = new Set(['ccv3', 'chara'])

/** The keyword of a tEXt chunk (`keyword\0text`), or undefined for any other chunk. */
export function readTextKeyword(chunk: PngChunk): string | undefined {
  if (chunk.type !== 'tEXt') return undefined
  const end = chunk.data.indexOf(0)
  return end > 0 && end < 80 ? Buffer.from(chunk.data.subarray(0, end)).toString('latin1') : undefined
}

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

function decodeCardText(chunk: PngChunk, keyword: string): string {
  if (computeCrc32(new TextEncoder().encode(chunk.type), chunk.data) !== chunk.crc)
    throw new BadRequestError(`bad PNG: the ${keyword} chunk is damaged (its CRC does not match)`)
  const text = Buffer.from(chunk.data.subarray(keyword.length + 1))
    .toString('latin1')
    .replace(/\s+/g, '')
  if (!base64Pattern.test(text) || text.length % 4 === 1)
    throw new BadRequestError(`the ${keyword} chunk is not base64`)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'base64'))
  } catch (error) {
    throw new BadRequestError(`the ${keyword} chunk is not base64 of UTF-8 text`, { cause: error })
  }
}

export function readCardPng(png: Uint8Array): ReadCardPngResult {
  const found = new Map<string, PngChunk>()
  const kept: Uint8Array[] = [pngSignature]
  for (const chunk of readPngChunks(png)) {
    const keyword = readTextKeyword(chunk)
    if (keyword && cardChunkKeywords.has(keyword)) {
      if (!found.has(keyword)) found.set(keyword, chunk)
    } else kept.push(chunk.bytes)
  }
  const chunk = found.has('ccv3') ? 'ccv3' : found.has('chara') ? 'chara' : undefined
  if (!chunk) throw new BadRequestError('the PNG carries no character card (no "chara" or "ccv3" text chunk)')
  return { json: decodeCardText(found.get(chunk)!, chunk), chunk, image: Buffer.concat(kept) }
}
