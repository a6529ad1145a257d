/**
 * Word segmentation shared by indexing and querying, so both sides produce the same terms.
 * Chinese and Japanese have no spaces between words: `Intl.Segmenter` (word granularity) splits
 * them, and long CJK words also yield their character bigrams so "北京" still finds "北京大学".
 * Latin text is lowercased, stripped of possessives and lightly stemmed.
 */

import { stopwords } from './english-stopwords.js'
import { stemEnglishWord } from './stem-english-word.js'

const cjkPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const latinWordPattern = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}]+)*/gu
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' })

export interface SegmentTextOptions {
  /** Keep stopwords (used when a query has nothing else). @default false */
  keepStopwords?: boolean
}

/** The index terms of a text, in order, with repeats (term frequency matters to BM25). */
export function segmentText(text: string, options: SegmentTextOptions = {}): string[] {
  const normalized = text.normalize('NFKC').toLowerCase()
  const terms: string[] = []
  const words = cjkPattern.test(normalized) ? segmentMixed(normalized) : normalized.match(latinWordPattern)
  for (const word of words ?? []) {
    if (cjkPattern.test(word)) {
      pushCjkWord(terms, word, options)
      continue
    }
    const term = normalizeLatinWord(word)
    if (!term) continue
    if (!options.keepStopwords && stopwords.has(term)) continue
    terms.push(term)
  }
  return terms
}

function segmentMixed(text: string): string[] {
  const words: string[] = []
  for (const segment of segmenter.segment(text)) {
    if (segment.isWordLike) words.push(segment.segment)
  }
  return words
}

function pushCjkWord(terms: string[], word: string, options: SegmentTextOptions): void {
  const clean = word.replace(/[^\p{L}\p{N}\p{M}]/gu, '')
  if (!clean) return
  if (!options.keepStopwords && stopwords.has(clean)) return
  terms.push(clean)
  const characters = [...clean]
  if (characters.length < 3) return
  for (let index = 0; index + 1 < characters.length; index++) {
    terms.push(`${characters[index]}${characters[index + 1]}`)
  }
}

function normalizeLatinWord(word: string): string {
  // "caroline's" → "caroline"; "don't" → "dont" (a stopword).
  const withoutPossessive = word.replace(/['’]s$/u, '')
  const joined = withoutPossessive.replace(/['’]/gu, '')
  return stemEnglishWord(foldLatinDiacritics(joined))
}

/**
 * "café" → "cafe", "Zoë" → "zoe", as the FTS table's tokenizer (remove_diacritics 2) folds them,
 * so a query finds a word written with or without its accents. Only marks on Latin letters go:
 * Devanagari vowel signs or Japanese voicing marks are part of the word.
 */
function foldLatinDiacritics(word: string): string {
  if (!/[^\u0000-\u007f]/.test(word)) return word
  return word
    .normalize('NFD')
    .replace(/(\p{Script=Latin})\p{Mn}+/gu, '$1')
    .normalize('NFC')
}
