import { describe, expect, it } from 'vitest'
import { sniffMediaType } from './sniff-media-type.js'

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  )

describe('sniffMediaType for recordings', () => {
  it.each([
    ['audio/wav', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['image/webp', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ')],
    ['audio/ogg', bytes('OggS', [0, 2])],
    ['audio/flac', bytes('fLaC', [0])],
    ['audio/mpeg', bytes('ID3', [4, 0])],
    ['audio/mpeg', bytes([0xff, 0xfb, 0x90, 0x64])],
    ['audio/mp4', bytes([0, 0, 0, 0x20], 'ftypM4A ')],
    ['video/mp4', bytes([0, 0, 0, 0x20], 'ftypisom')],
    ['video/webm', bytes([0x1a, 0x45, 0xdf, 0xa3])],
  ])('%s', (expected, content) => {
    expect(sniffMediaType(content)).toBe(expected)
  })

  it('does not take a UTF-16 text (byte order mark FF FE) or plain text for audio', () => {
    expect(sniffMediaType(bytes([0xff, 0xfe, 0x41, 0x00]))).toBeUndefined()
    expect(sniffMediaType(bytes('hello'))).toBeUndefined()
  })
})
