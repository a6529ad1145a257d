/**
 * The chunks of a PNG as views into its bytes, without copying or checking the picture data: a card
 * reader needs only its text chunks, and a picture of several MB must not cost more than walking
 * its chunk headers (SPEC R6: no input blocks the event loop for long). Checks the signature, that
 * IHDR comes first, that no chunk runs past the end and that IEND is there.
 */
import { BadRequestError } from '../../shared/errors.js'

export interface PngChunk {
  /** `IHDR`, `tEXt`, … */
  type: string
  /** The chunk's data. */
  data: Uint8Array
  /** The whole chunk (length, type, data, CRC) within the file. */
  bytes: Uint8Array
  /** The CRC stored after the data. */
  crc: number
}

export const pngSignature = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

export function readPngChunks(png: Uint8Array): PngChunk[] {
  if (png.length < pngSignature.length || pngSignature.some((byte, index) => png[index] !== byte))
    throw new BadRequestError('bad PNG: the file does not start with the PNG signature')
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength)
  const chunks: PngChunk[] = []
  let offset = pngSignature.length
  while (offset + 12 <= png.length) {
    const length = view.getUint32(offset)
    const end = offset + 12 + length
    if (end > png.length) throw new BadRequestError('bad PNG: a chunk runs past the end of the file')
    const type = String.fromCharCode(png[offset + 4]!, png[offset + 5]!, png[offset + 6]!, png[offset + 7]!)
    if (chunks.length === 0 && type !== 'IHDR')
      throw new BadRequestError('bad PNG: it does not begin with IHDR')
    chunks.push({
      type,
      data: png.subarray(offset + 8, offset + 8 + length),
      bytes: png.subarray(offset, end),
      crc: view.getUint32(end - 4),
    })
    if (type === 'IEND') return chunks
    offset = end
  }
  throw new BadRequestError('bad PNG: the file ended before its IEND chunk')
}
