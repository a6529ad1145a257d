import { describe, expect, it } from 'vitest'
import { joinSentences } from './join-sentences.js'

describe('joinSentences', () => {
  it('puts a space between Latin sentences only', () => {
    expect(joinSentences(['Hi.', 'Fine.', '好。', '好的。'])).toBe('Hi. Fine.好。好的。')
  })

  it('joins nothing into an empty text', () => {
    expect(joinSentences([])).toBe('')
  })
})
