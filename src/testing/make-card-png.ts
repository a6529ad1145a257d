/**
 * PNGs carrying card text chunks, written the way card apps write them (text chunks put before
 * IEND) and independently of charpipe's own card writer, so a test of the reader does not check the
 * writer against itself.
 */
import { crc32, deflateSync } from 'node:zlib'

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const iendLength = 12

/** A chunk: length, type, data and the CRC of type and data. */
function encodeChunk(type: string, data: Uint8Array): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const chunk = Buffer.alloc(8 + data.length + 4)
  chunk.writeUInt32BE(data.length, 0)
  typeAndData.copy(chunk, 4)
  chunk.writeUInt32BE(crc32(typeAndData), 8 + data.length)
  return chunk
}

/** tEXt holds Latin-1 only, with a NUL between keyword and text: anything else is refused. */
function encodeTextChunk(keyword: string, text: string): Buffer {
  if (!/^[\x01-\xff]{1,79}$/.test(keyword))
    throw new Error(`makeCardPng: the keyword ${JSON.stringify(keyword)} is not 1-79 Latin-1 characters`)
  if (!/^[\x01-\xff]*$/.test(text))
    throw new Error(
      `makeCardPng: the text of ${keyword} is not Latin-1 (encode a card with encodeCardChunkText)`,
    )
  return encodeChunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'))
}

/** A 2×2 RGB PNG without any text chunk. */
export function makePlainPng(): Uint8Array {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(2, 0)
  header.writeUInt32BE(2, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const rows = new Uint8Array([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 0, 255, 255, 255, 255])
  return new Uint8Array(
    Buffer.concat([
      Buffer.from(pngSignature),
      encodeChunk('IHDR', header),
      encodeChunk('IDAT', deflateSync(rows)),
      encodeChunk('IEND', new Uint8Array(0)),
    ]),
  )
}

/**
 * A PNG carrying text chunks (keyword → text), put before the picture's IEND: `chara` for a V2
 * card, `ccv3` for a V3 one, each `encodeCardChunkText(card)`.
 *
 * @example
 * makeCardPng({ chara: encodeCardChunkText(makeCardV2()), ccv3: encodeCardChunkText(makeCardV3()) })
 */
export function makeCardPng(texts: Record<string, string>, picture: Uint8Array = makePlainPng()): Uint8Array {
  const end = Buffer.from(picture.subarray(-iendLength))
  if (picture.length < pngSignature.length + iendLength || end.toString('latin1', 4, 8) !== 'IEND')
    throw new Error('makeCardPng: the picture is not a PNG that ends with its IEND chunk')
  const added = Object.entries(texts).map(([keyword, text]) => encodeTextChunk(keyword, text))
  return new Uint8Array(Buffer.concat([picture.subarray(0, -iendLength), ...added, end]))
}

/** A card as the text of a `chara` or `ccv3` chunk: its JSON in UTF-8, then base64. */
export function encodeCardChunkText(card: unknown): string {
  return Buffer.from(JSON.stringify(card), 'utf8').toString('base64')
}
