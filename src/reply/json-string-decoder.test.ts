import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonStringDecoder } from './json-string-decoder.js'

function decode(inside: string): { text: string; closedAt: number } {
  const decoder = new JsonStringDecoder()
  let text = ''
  for (let index = 0; index < inside.length; index++) {
    const piece = decoder.next(inside.charCodeAt(index))
    if (piece === undefined) return { text: text + decoder.flush(), closedAt: index }
    text += piece
  }
  return { text: text + decoder.flush(), closedAt: -1 }
}

describe('JsonStringDecoder', () => {
  it('decodes what JSON.stringify wrote, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (value) => {
        const encoded = JSON.stringify(value).slice(1)
        expect(decode(encoded)).toEqual({ text: value, closedAt: encoded.length - 1 })
      }),
    )
  })

  it('decodes \\u escapes, also surrogate pairs written as two escapes', () => {
    expect(decode('\\u4f60\\u597d\\ud83d\\ude0a"').text).toBe('你好😊')
  })

  it('keeps unknown escapes and marks broken ones', () => {
    expect(decode('\\x\\u12g"').text).toBe('x\uFFFDg')
  })
})
