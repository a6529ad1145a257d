import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { joinSentences } from './join-sentences.js'

const cjk = /[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]/

/** The plain definition, reading the text built so far. */
function joinByDefinition(sentences: readonly string[]): string {
  let text = ''
  for (const sentence of sentences) {
    if (text && !cjk.test(text.at(-1)!) && !cjk.test(sentence[0] ?? '')) text += ' '
    text += sentence
  }
  return text
}

describe('joinSentences', () => {
  it('puts a space between Latin sentences only', () => {
    expect(joinSentences(['Hi.', 'Fine.', '好。', '好的。'])).toBe('Hi. Fine.好。好的。')
  })

  it('joins nothing into an empty text', () => {
    expect(joinSentences([])).toBe('')
  })

  it('joins any sentences as the definition does, empty ones and surrogate pairs included', () => {
    const piece = fc.constantFrom('', 'a', 'Hi.', ' ', '好', '。', '😀', '\ud83d', 'ｈ', 'x y')
    const sentence = fc.array(piece, { maxLength: 4 }).map((pieces) => pieces.join(''))
    fc.assert(
      fc.property(fc.array(sentence, { maxLength: 12 }), (sentences) => {
        expect(joinSentences(sentences)).toBe(joinByDefinition(sentences))
      }),
      { numRuns: 2_000 },
    )
  })
})
