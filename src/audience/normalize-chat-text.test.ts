import { describe, expect, it } from 'vitest'
import { findBlockedWord, normalizeChatText } from './normalize-chat-text.js'

const blocked = (text: string, words: string[]) =>
  findBlockedWord(normalizeChatText(text), words.map(normalizeChatText))

describe('findBlockedWord', () => {
  it.each([
    ['zero-width space', 'buy sp\u200bam now', 'spam'],
    ['zero-width joiner in Chinese', '快来加\u200d群', '加群'],
    ['zero-width space in Chinese', '加\u200b群', '加群'],
    ['soft hyphen', 'sp\u00adam', 'spam'],
    ['combining marks', 's\u0301p\u0308am', 'spam'],
    ['Cyrillic look-alikes', 'sр\u0430m', 'spam'],
    ['Greek capital look-alikes', 'ΒΑD', 'bad'],
    ['full width', 'ｓｐａｍ', 'spam'],
    ['spaced out', 's p a m', 'spam'],
  ])('finds a blocked word hidden by %s', (_name, text, word) => {
    expect(blocked(text, [word])).toBeDefined()
  })

  it('lets through text that only shares letters with a blocked word', () => {
    expect(blocked('a sparkling day', ['spam'])).toBeUndefined()
    expect(blocked('加油', ['加群'])).toBeUndefined()
  })
})
