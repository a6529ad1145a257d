import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  hasSegmentedText,
  maxIndexedCharacters,
  segmentText,
  segmentWindowCharacters,
  splitSegmentWindows,
} from './segment-text.js'
import { stemEnglishWord } from './stem-english-word.js'

describe('segmentText diacritics', () => {
  it('folds accents on Latin letters only', () => {
    expect(segmentText('Café with Zoë, naïve façade')).toEqual(segmentText('cafe with zoe, naive facade'))
    expect(segmentText('Café')).toEqual(segmentText('cafe'))
    expect(segmentText('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया'])
    expect(segmentText('がっこう')).toContain('が')
  })
})

describe('segmentText', () => {
  it('splits Chinese into words with Intl.Segmenter and drops function words', () => {
    const terms = segmentText('我上周去了北京大学，见到了老朋友。')
    expect(terms).toContain('北京')
    expect(terms).toContain('大学')
    expect(terms).not.toContain('我')
    expect(terms).not.toContain('，')
  })

  it('adds bigrams of long Chinese words so a shorter query word still matches', () => {
    const terms = segmentText('老朋友')
    expect(terms).toEqual(['老朋友', '老朋', '朋友'])
  })

  it('lowercases, drops possessives and stopwords, and stems English', () => {
    expect(segmentText("What did Caroline's sister paint?")).toEqual(['carolin', 'sister', 'paint'])
    expect(segmentText('She was painting sunsets')).toEqual(['paint', 'sunset'])
  })

  it('handles mixed scripts', () => {
    expect(segmentText('我的iPhone手机坏了')).toEqual(expect.arrayContaining(['iphon', '手机']))
  })

  it('drops a stopword that stems to something else ("where" → "wher")', () => {
    expect(segmentText('Where were those before? Does she have some more?')).toEqual([])
    expect(segmentText('Where does Deborah get her cats?')).toEqual(['deborah', 'cat'])
  })

  it('keeps stopwords only when asked', () => {
    expect(segmentText('what is it')).toEqual([])
    expect(segmentText('what is it', { keepStopwords: true })).toEqual(['what', 'is', 'it'])
  })
})

describe('stemEnglishWord', () => {
  it.each([
    ['paints', 'paint'],
    ['painted', 'paint'],
    ['painting', 'paint'],
    ['loved', 'lov'],
    ['loving', 'lov'],
    ['love', 'lov'],
    ['running', 'run'],
    ['studies', 'study'],
    ['studied', 'study'],
    ['class', 'class'],
    ['bus', 'bus'],
    ['fell', 'fell'],
  ])('%s → %s', (word, stem) => {
    expect(stemEnglishWord(word)).toBe(stem)
  })
})

describe('segmentText on a long text', () => {
  it('indexes only the first maxIndexedCharacters', () => {
    const text = `${'北京大学 '.repeat(maxIndexedCharacters / 5)}omega`
    const terms = segmentText(text)
    expect(terms).toContain('北京')
    expect(terms).not.toContain('omega')
    expect(segmentText(`${'a'.repeat(1_000_000)} omega`)).not.toContain('omega')
  })

  it.each([
    ['an unbroken Chinese run', '这是一段很长的中文文本没有空格'.repeat(200)],
    ['prose', 'The quick brown fox jumps over the lazy dog. '.repeat(100)],
    ['emoji', '😀'.repeat(3_000)],
    [
      'lines, each cut on its own',
      `User: 你好\nAssistant: ${'这是一段很长的中文文本没有空格'.repeat(100)}\n`.repeat(3),
    ],
  ])('hands the word segmenter bounded windows that cover %s', (_name, text) => {
    const windows = splitSegmentWindows(text)
    expect(windows.join('')).toBe(text)
    for (const window of windows) {
      expect(window.length).toBeLessThanOrEqual(segmentWindowCharacters)
      expect(window.length).toBeGreaterThan(0)
      expect(/^[\uDC00-\uDFFF]/.test(window)).toBe(false)
    }
  })

  it('cuts any text into bounded windows that cover it, each line apart from the next', () => {
    const piece = fc.constantFrom(
      '这是一段很长的中文文本',
      '灯塔。',
      '，',
      ' ',
      '\n',
      '\r\n',
      'word ',
      '😀',
      '\u0301',
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
        const text = pieces.join('')
        const windows = splitSegmentWindows(text)
        expect(windows.join('')).toBe(text)
        for (const window of windows) {
          expect(window.length).toBeLessThanOrEqual(segmentWindowCharacters)
          // A newline only ever ends a window; a window never starts inside a surrogate pair.
          expect(window.slice(0, -1).includes('\n')).toBe(false)
          expect(/^[\uDC00-\uDFFF]/u.test(window)).toBe(false)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('cuts windows at punctuation so words stay whole', () => {
    const text = '我上周去了北京大学，见到了老朋友。'.repeat(200)
    for (const window of splitSegmentWindows(text).slice(0, -1)) expect(window).toMatch(/[，。]$/u)
  })
})

describe('segmentText cache', () => {
  it('gives each call its own copy of the terms of a cached text', () => {
    const text = '我们明天去灯塔看海，好吗？'
    const first = segmentText(text)
    first.push('changed')
    first[0] = 'changed'
    const second = segmentText(text)
    expect(second).not.toContain('changed')
    expect(second).toEqual(segmentText(`${text}`))
  })

  it('keeps the terms with and without stopwords apart', () => {
    expect(segmentText('where is the lighthouse')).toEqual(['lighthous'])
    expect(segmentText('where is the lighthouse', { keepStopwords: true })).toEqual([
      'wher',
      'is',
      'the',
      'lighthous',
    ])
    expect(segmentText('where is the lighthouse')).toEqual(['lighthous'])
  })

  it('keys a text by its indexed part', () => {
    const head = 'a'.repeat(maxIndexedCharacters - 10)
    expect(segmentText(`${head} lighthouse beyond`)).toEqual(segmentText(`${head} lighthouse beyond the cap`))
  })
})

describe('hasSegmentedText', () => {
  it('tells a text whose terms are kept from one never segmented', () => {
    const text = '港口东边的小山上有一座白色的灯塔。'
    expect(hasSegmentedText(text)).toBe(false)
    segmentText(text)
    expect(hasSegmentedText(text)).toBe(true)
    expect(hasSegmentedText(text, { keepStopwords: true })).toBe(false)
  })
})
