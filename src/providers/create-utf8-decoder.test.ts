import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createUtf8Decoder } from './create-utf8-decoder.js'

/** `bytes` cut at `cuts` (positions, taken modulo the length). */
function cutBytes(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const parts: Uint8Array[] = []
  let last = 0
  for (const point of points) {
    parts.push(bytes.subarray(last, point))
    last = point
  }
  parts.push(bytes.subarray(last))
  return parts
}

/**
 * The WHATWG decode with its BOM rule written out: a U+FEFF is dropped only as the stream's first
 * code point. Node 26's own BOM handling also drops one that follows a leading replacement
 * character (EF EF BB BF gave "\ufffd" alone), so the BOM is left to this function.
 */
function decodeWithTextDecoder(parts: Uint8Array[]): string {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let text = ''
  for (const part of parts) text += decoder.decode(part, { stream: true })
  text += decoder.decode()
  return text.startsWith('\ufeff') ? text.slice(1) : text
}

function decodeWithUtf8Decoder(parts: Uint8Array[]): string {
  const decoder = createUtf8Decoder()
  let text = ''
  for (const part of parts) text += decoder.write(part)
  return text + decoder.end()
}

// Bytes that make the hard cases likely: byte order marks, unfinished and overlong sequences,
// surrogates encoded in UTF-8, lone continuation bytes, bytes that are never UTF-8.
const trickyBytes = fc
  .array(
    fc.constantFrom(
      0xef,
      0xbb,
      0xbf,
      0xe4,
      0xbd,
      0xa0,
      0x80,
      0xc0,
      0xc2,
      0xf0,
      0x9f,
      0x98,
      0xed,
      0xa0,
      0x41,
      0x0a,
      0xff,
    ),
    { maxLength: 40 },
  )
  .map((values) => Uint8Array.from(values))
const anyBytes = fc.oneof(
  fc.uint8Array({ maxLength: 60 }),
  fc.string({ maxLength: 30 }).map((text) => new TextEncoder().encode(text)),
  trickyBytes,
)

describe('createUtf8Decoder', () => {
  it('gives the same text as TextDecoder, however the bytes are cut', () => {
    fc.assert(
      fc.property(anyBytes, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        const parts = cutBytes(bytes, cuts)
        expect(decodeWithUtf8Decoder(parts)).toBe(decodeWithTextDecoder(parts))
      }),
      { numRuns: 3000 },
    )
  })

  it('keeps a byte order mark that is not the first code point (found on Node 26)', () => {
    const bytes = Uint8Array.from([0xef, 0xef, 0xbb, 0xbf, 0xef])
    expect(decodeWithUtf8Decoder([bytes])).toBe('\ufffd\ufeff\ufffd')
    expect(decodeWithUtf8Decoder([Uint8Array.from([0xef, 0xbb, 0xbf, 0x41])])).toBe('A')
  })

  it('never holds back a line break: after each read, the text up to its last line break is the same', () => {
    const upToLastBreak = (text: string) => text.slice(0, text.lastIndexOf('\n') + 1)
    fc.assert(
      fc.property(anyBytes, fc.array(fc.nat(), { maxLength: 6 }), (bytes, cuts) => {
        const ours = createUtf8Decoder()
        const reference = new TextDecoder()
        let oursSoFar = ''
        let referenceSoFar = ''
        for (const part of cutBytes(bytes, cuts)) {
          oursSoFar += ours.write(part)
          referenceSoFar += reference.decode(part, { stream: true })
          expect(upToLastBreak(oursSoFar)).toBe(upToLastBreak(referenceSoFar))
        }
      }),
      { numRuns: 3000 },
    )
  })

  it('drops a byte order mark at the start of the body only, even when it arrives in pieces', () => {
    const decoder = createUtf8Decoder()
    expect(decoder.write(Uint8Array.from([0xef, 0xbb]))).toBe('')
    expect(decoder.write(Uint8Array.from([0xbf, 0x61, 0xef, 0xbb, 0xbf]))).toBe('a\ufeff')
    expect(decoder.end()).toBe('')
  })

  it('turns an unfinished character at the end of the body into U+FFFD', () => {
    const decoder = createUtf8Decoder()
    expect(decoder.write(Uint8Array.from([0x61, 0xe4, 0xbd]))).toBe('a')
    expect(decoder.end()).toBe('\ufffd')
  })
})
