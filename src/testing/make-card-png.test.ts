import { decode as decodeTextChunk } from 'png-chunk-text'
import extractChunks from 'png-chunks-extract'
import { describe, expect, it } from 'vitest'
import { encodeCardChunkText, makeCardPng, makePlainPng } from './make-card-png.js'
import { makeCardV2 } from './make-character-card.js'

describe('makeCardPng', () => {
  it('puts the text chunks before IEND of the picture, readable by a PNG chunk library', () => {
    const card = makeCardV2({ name: '月' })
    const png = makeCardPng({ chara: encodeCardChunkText(card), note: 'plain' })
    const chunks = extractChunks(png)
    expect(chunks.map((chunk) => chunk.name)).toEqual(['IHDR', 'IDAT', 'tEXt', 'tEXt', 'IEND'])
    const texts = chunks.filter((chunk) => chunk.name === 'tEXt').map((chunk) => decodeTextChunk(chunk.data))
    expect(texts[1]).toEqual({ keyword: 'note', text: 'plain' })
    expect(JSON.parse(Buffer.from(texts[0]!.text, 'base64').toString('utf8')).data.name).toBe('月')
  })

  it('keeps the picture it is given, chunk for chunk', () => {
    const picture = makePlainPng()
    const withCard = extractChunks(makeCardPng({ ccv3: 'e30=' }, picture))
    expect(withCard.filter((chunk) => chunk.name !== 'tEXt')).toEqual(extractChunks(picture))
  })

  it('refuses text tEXt cannot hold and a picture that is not a PNG, saying which', () => {
    expect(() => makeCardPng({ chara: '月' })).toThrow(/text of chara is not Latin-1/)
    expect(() => makeCardPng({ '': 'x' })).toThrow(/keyword "" is not 1-79 Latin-1 characters/)
    expect(() => makeCardPng({ chara: 'x' }, new Uint8Array([1, 2, 3]))).toThrow(/not a PNG/)
  })
})
