import { describe, expect, it } from 'vitest'
import { segmentText } from './segment-text.js'
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
