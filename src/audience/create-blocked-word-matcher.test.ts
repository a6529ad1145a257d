import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createBlockedWordMatcher,
  prepareBlockedWordMatcher,
  type RunSlice,
} from './create-blocked-word-matcher.js'
import { type NormalizedText, normalizeChatText } from './normalize-chat-text.js'

const blocked = (text: string, words: string[]) =>
  createBlockedWordMatcher(words).find(normalizeChatText(text))

/** The plain way: every form of every word looked for in the text, in list order. */
function findByEachWord(text: NormalizedText, words: readonly NormalizedText[]): string | undefined {
  for (const word of words) {
    if (word.folded && text.folded.includes(word.folded)) return word.folded
    if (word.compact && text.compact.includes(word.compact)) return word.folded
    if (word.skeleton && text.skeleton.includes(word.skeleton)) return word.folded
    if (word.skeleton && text.casedSkeleton.includes(word.skeleton)) return word.folded
  }
  return undefined
}

describe('createBlockedWordMatcher', () => {
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
    expect(blocked(text, [word])).toBe(word)
  })

  it('lets through text that only shares letters with a blocked word', () => {
    expect(blocked('a sparkling day', ['spam'])).toBeUndefined()
    expect(blocked('加油', ['加群'])).toBeUndefined()
    expect(blocked('anything', [])).toBeUndefined()
  })

  it('finds a word written in look-alikes, and a word of punctuation only by its folded form', () => {
    expect(blocked('spam', ['ѕраm'])).toBe('ѕраm')
    expect(blocked('wow!!!', ['!!!'])).toBe('!!!')
    expect(blocked('wow! !!', ['!!!'])).toBeUndefined()
    // Only the skeleton taken before lower-casing finds it (a lower-case `m` is `rn`, a capital `M` is not).
    expect(blocked('Mark', ['ꓟ'])).toBe('ꓟ')
    expect(blocked('mark', ['ꓟ'])).toBeUndefined()
  })

  it('names the first word of the list the text holds, whichever form found it', () => {
    const words = ['zzz', 'ｓｐａｍ', 'spa', 'pam', 'sp am']
    expect(blocked('SPAM', words)).toBe('spam')
    expect(blocked('s p a', words)).toBe('spa')
    expect(blocked('a zzz and spam', words)).toBe('zzz')
    // Words that are suffixes of one another, found through the automaton's fallbacks.
    expect(blocked('xabcd', ['bcd', 'abcx', 'cd'])).toBe('bcd')
    expect(blocked('xabcd', ['abce', 'cd', 'bcd'])).toBe('cd')
  })

  it('builds one automaton per word list, also for the same words in another array', () => {
    const words = ['spam', 'eggs']
    expect(createBlockedWordMatcher(words)).toBe(createBlockedWordMatcher(words))
    expect(createBlockedWordMatcher(['spam', 'eggs'])).toBe(createBlockedWordMatcher(words))
    expect(createBlockedWordMatcher(['spam'])).not.toBe(createBlockedWordMatcher(words))
    expect(createBlockedWordMatcher(['eggs', 'spam'])).not.toBe(createBlockedWordMatcher(words))
    // A word is not split at the separator of the lookup.
    expect(createBlockedWordMatcher(['spam\u0000eggs'])).not.toBe(createBlockedWordMatcher(words))
  })
})

// Letters, CJK, look-alikes (Cyrillic, Greek, mathematical), full width, invisible characters,
// combining marks, spaces, punctuation, an emoji and a lone surrogate.
const alphabet = [
  ...'abcdeimnopsl01IO',
  ...'ABDMS',
  ...'加群代练主播好哈',
  ...'аросеѕΑΒΟοΣσςɑıꓟ',
  '𝐚',
  ...'ｓｐａｍＡ１',
  '\u200b',
  '\u200d',
  '\u00ad',
  '\ufeff',
  '\u0301',
  '\u0308',
  ...' -!.？、',
  '😀',
  '\ud83d',
]
const piece = fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 6 })
/** Letters a word's forms are made of, so a random text often holds one. */
const wordList = fc.array(piece, { maxLength: 12 })

describe('createBlockedWordMatcher against the plain way', () => {
  it('finds the same word in random texts', () => {
    fc.assert(
      fc.property(
        wordList,
        fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 40 }),
        (words, text) => {
          const normalized = normalizeChatText(text)
          expect(createBlockedWordMatcher(words).find(normalized)).toBe(
            findByEachWord(normalized, words.map(normalizeChatText)),
          )
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('finds the same word in texts made of the words themselves, disguised', () => {
    const disguise = fc.constantFrom(
      (word: string) => word,
      (word: string) => word.toUpperCase(),
      (word: string) => [...word].join('\u200b'),
      (word: string) => [...word].join(' '),
      (word: string) => word.normalize('NFD'),
      (word: string) => word.replace(/a/g, 'а').replace(/o/g, 'о').replace(/p/g, 'р'),
      (word: string) =>
        word.replace(/[a-z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 0xfee0)),
    )
    const text = fc.array(fc.tuple(piece, fc.nat(), disguise), { maxLength: 5 })
    fc.assert(
      fc.property(wordList, text, (words, parts) => {
        const written = parts
          .map(([around, pick, change]) => around + (words.length ? change(words[pick % words.length]!) : ''))
          .join('')
        const normalized = normalizeChatText(written)
        expect(createBlockedWordMatcher(words).find(normalized)).toBe(
          findByEachWord(normalized, words.map(normalizeChatText)),
        )
      }),
      { numRuns: 2000 },
    )
  })
})

/** A slice runner that counts its slices and runs each at once. */
function countingSlices(): { runSlice: RunSlice; readonly slices: number } {
  let slices = 0
  return {
    runSlice: async (work) => {
      slices++
      return work()
    },
    get slices() {
      return slices
    },
  }
}

/** A clock that moves one millisecond each time it is read: every slice of 1 ms takes one step. */
function steppingClock(): () => number {
  let time = 0
  return () => time++
}

describe('prepareBlockedWordMatcher', () => {
  it('builds a long list in many short slices, and the list then needs no building', async () => {
    const words = Array.from({ length: 400 }, (_, index) => `word${index}-${'x'.repeat(index % 40)}`)
    const slices = countingSlices()
    const prepared = await prepareBlockedWordMatcher(words, { ...slices, sliceMs: 1, now: steppingClock() })
    // 4 words a step, twice (normalized, then added), and the automaton's nodes: one step a slice.
    expect(slices.slices).toBeGreaterThan((2 * 400) / 4)
    expect(createBlockedWordMatcher(words)).toBe(prepared)
    expect(prepared.find(normalizeChatText('say WORD7-xxxxxxx now'))).toBe('word7-xxxxxxx')
  })

  it('keeps the matcher a message built meanwhile', async () => {
    const words = ['built meanwhile', 'by a message']
    const slices = countingSlices()
    let inUse: ReturnType<typeof createBlockedWordMatcher> | undefined
    const prepared = await prepareBlockedWordMatcher(words, {
      runSlice: async (work) => {
        inUse ??= createBlockedWordMatcher(words)
        return slices.runSlice(work)
      },
    })
    expect(prepared).toBe(inUse)
  })

  it('finds what the plain way finds, in random lists and texts', async () => {
    await fc.assert(
      fc.asyncProperty(
        wordList,
        fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 40 }),
        fc.integer({ min: 1, max: 5 }),
        async (words, text, sliceMs) => {
          const prepared = await prepareBlockedWordMatcher([...words], {
            ...countingSlices(),
            sliceMs,
            now: steppingClock(),
          })
          const normalized = normalizeChatText(text)
          expect(prepared.find(normalized)).toBe(findByEachWord(normalized, words.map(normalizeChatText)))
        },
      ),
      { numRuns: 500 },
    )
  })
})
