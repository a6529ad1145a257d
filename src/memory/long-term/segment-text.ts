/**
 * Word segmentation shared by indexing and querying, so both sides produce the same terms.
 * Chinese and Japanese have no spaces between words: `Intl.Segmenter` (word granularity) splits
 * them, and long CJK words also yield their character bigrams so "北京" still finds "北京大学".
 * Latin text is lowercased, stripped of possessives and lightly stemmed.
 *
 * The work is bounded whatever text arrives: only the first `maxIndexedCharacters` are segmented
 * (a memory or a query is found by its opening words; a megabyte pasted in one turn must not hold
 * the event loop), and `Intl.Segmenter`, whose cost grows faster than the length of one unbroken
 * run of CJK text, only ever sees windows of at most `segmentWindowCharacters`.
 *
 * The same texts come back often: a memory's text is segmented when it is stored, again when the
 * next memory of its scope becomes its neighbour (it is then the new memory's context, and is
 * indexed again with its own new context), and again whenever a search reads it back to expand a
 * query. Segmenting CJK text (ICU's dictionary) is the costliest step of a memory write, so the
 * terms of recent texts are kept, least recently used first out, up to `segmentCacheCharacters`
 * characters of text; a text is the same key whatever follows its indexed part.
 */

import { stopwords } from './english-stopwords.js'
import { stemEnglishWord } from './stem-english-word.js'

const cjkPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const latinWordPattern = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}]+)*/gu
// Made with the first CJK text: building it loads ICU's word-break dictionary (about 10 ms and
// several MB), which `import('charpipe')` and programs without memory should not pay for.
let segmenter: Intl.Segmenter | undefined

/** Characters of a text that are indexed or matched; the rest is stored but not segmented. */
export const maxIndexedCharacters = 2_048
/** Longest text one `Intl.Segmenter` call sees (its cost is superlinear in one run). */
export const segmentWindowCharacters = 1_000

export interface SegmentTextOptions {
  /** Keep stopwords (used when a query has nothing else). @default false */
  keepStopwords?: boolean
}

/** Characters of text whose terms are kept for the next `segmentText` of the same text. */
const segmentCacheCharacters = 1_000_000

interface SegmentCache {
  /** Map order is use order: the first key is the least recently used. */
  terms: Map<string, readonly string[]>
  characters: number
}

const segmentCaches = {
  plain: { terms: new Map(), characters: 0 } as SegmentCache,
  keepingStopwords: { terms: new Map(), characters: 0 } as SegmentCache,
}

/** The index terms of a text, in order, with repeats (term frequency matters to BM25). */
export function segmentText(text: string, options: SegmentTextOptions = {}): string[] {
  const indexed = capIndexedText(text)
  const cache = options.keepStopwords ? segmentCaches.keepingStopwords : segmentCaches.plain
  const cached = cache.terms.get(indexed)
  if (cached) {
    cache.terms.delete(indexed)
    cache.terms.set(indexed, cached)
    return cached.slice()
  }
  const terms = segmentIndexedText(indexed, options)
  rememberTerms(cache, indexed, terms)
  return terms.slice()
}

/** Whether `segmentText(text, options)` would find its terms kept, without segmenting. */
export function hasSegmentedText(text: string, options: SegmentTextOptions = {}): boolean {
  const cache = options.keepStopwords ? segmentCaches.keepingStopwords : segmentCaches.plain
  return cache.terms.has(capIndexedText(text))
}

function rememberTerms(cache: SegmentCache, text: string, terms: readonly string[]): void {
  if (text.length > segmentCacheCharacters) return
  cache.terms.set(text, terms)
  cache.characters += text.length
  for (const oldest of cache.terms.keys()) {
    if (cache.characters <= segmentCacheCharacters) break
    cache.terms.delete(oldest)
    cache.characters -= oldest.length
  }
}

/**
 * The terms of `${first}\n${second}` (a memory's neighbour context: `joinContext`), the same as
 * `segmentText` gives, kept as `segmentText` keeps them; found from the kept terms of its two parts
 * where that gives the same terms. A newline is a word break in every mode (UAX #29, WB3a/b), so
 * the words of the joined text are the words of its parts wherever the joined text is cut into
 * the segmenter's windows at the same places as its parts are: the part cut the same way is taken
 * from the cache (a neighbour's text, segmented when it was stored), a part cut elsewhere (its
 * window ends in the other part) is segmented in the joined text's windows, and a joined text whose
 * parts would take a different path (one with CJK text, one without) is segmented whole.
 */
export function segmentJoinedText(first: string, second: string): string[] {
  const indexed = capIndexedText(`${first}\n${second}`)
  const cache = segmentCaches.plain
  const cached = cache.terms.get(indexed)
  if (cached) {
    cache.terms.delete(indexed)
    cache.terms.set(indexed, cached)
    return cached.slice()
  }
  const terms = segmentJoinedParts(first, indexed) ?? segmentIndexedText(indexed, {})
  rememberTerms(cache, indexed, terms)
  return terms.slice()
}

const normalizeForIndex = (text: string) => text.normalize('NFKC').toLowerCase()

/** The joined text's terms from its parts, or undefined where they might differ. */
function segmentJoinedParts(first: string, indexed: string): string[] | undefined {
  // `indexed` is the joined text as indexed: its second part may have been cut at the cap.
  if (first.length === 0 || indexed.length <= first.length + 1) return undefined
  const second = indexed.slice(first.length + 1)
  const normalizedFirst = normalizeForIndex(first)
  const normalizedSecond = normalizeForIndex(second)
  const normalized = normalizeForIndex(indexed)
  if (normalized !== `${normalizedFirst}\n${normalizedSecond}`) return undefined
  if (!cjkPattern.test(normalized)) return [...segmentText(first), ...segmentText(second)]
  if (!cjkPattern.test(normalizedFirst) || !cjkPattern.test(normalizedSecond)) return undefined
  // The joined text's windows, each split at the newline, on either side of it.
  const newline = normalizedFirst.length
  const firstPieces: string[] = []
  const secondPieces: string[] = []
  let start = 0
  for (const window of splitSegmentWindows(normalized)) {
    const end = start + window.length
    if (start < newline) firstPieces.push(normalized.slice(start, Math.min(end, newline)))
    if (end > newline + 1) secondPieces.push(normalized.slice(Math.max(start, newline + 1), end))
    start = end
  }
  return [
    ...termsOfPieces(firstPieces, normalizedFirst, first),
    ...termsOfPieces(secondPieces, normalizedSecond, second),
  ]
}

/**
 * A part's terms: its kept ones when the joined text cuts it where it is cut alone, or elsewhere
 * only after a mark that ends a word on both sides; else its pieces' own.
 */
function termsOfPieces(pieces: string[], normalizedPart: string, part: string): string[] {
  const alone = splitSegmentWindows(normalizedPart)
  return cutsAgree(cutOffsets(pieces), cutOffsets(alone), normalizedPart)
    ? segmentText(part)
    : termsOfWords(segmentWindows(pieces), {})
}

/** Where consecutive windows of one text meet. */
function cutOffsets(windows: readonly string[]): Set<number> {
  const cuts = new Set<number>()
  let offset = 0
  for (const window of windows.slice(0, -1)) {
    offset += window.length
    cuts.add(offset)
  }
  return cuts
}

function cutsAgree(some: Set<number>, others: Set<number>, text: string): boolean {
  for (const cut of some) if (!others.has(cut) && !isHardBreak(text, cut)) return false
  for (const cut of others) if (!some.has(cut) && !isHardBreak(text, cut)) return false
  return true
}

// Ideographic full stop, comma and the full-width ! and ?: word break property Other (UAX #29),
// so a word ends before and after them, and none belongs to the segmenter's dictionary. A mark,
// format character or joiner after them would attach to them (WB4): no clean break there.
const wordEndingMark = /[。、！？]/u
const attachingCharacter = /[\p{M}\p{Cf}]/u

/** Whether cutting `text` at `offset` leaves the words on either side as they are. */
function isHardBreak(text: string, offset: number): boolean {
  return wordEndingMark.test(text[offset - 1] ?? '') && !attachingCharacter.test(text[offset] ?? '')
}

function segmentIndexedText(indexed: string, options: SegmentTextOptions): string[] {
  const normalized = normalizeForIndex(indexed)
  const words = cjkPattern.test(normalized) ? segmentMixed(normalized) : normalized.match(latinWordPattern)
  return termsOfWords(words ?? [], options)
}

function termsOfWords(words: Iterable<string>, options: SegmentTextOptions): string[] {
  const terms: string[] = []
  for (const word of words) {
    if (cjkPattern.test(word)) {
      pushCjkWord(terms, word, options)
      continue
    }
    const term = normalizeLatinWord(word)
    if (!term) continue
    // The word is checked before stemming too: "where" stems to "wher", which is no stopword.
    if (!options.keepStopwords && (stopwords.has(term) || stopwords.has(word.replace(/['’]/gu, '')))) continue
    terms.push(term)
  }
  return terms
}

/** The first `maxCharacters` of a text, not splitting a surrogate pair. */
export function capIndexedText(text: string, maxCharacters = maxIndexedCharacters): string {
  if (text.length <= maxCharacters) return text
  return text.slice(0, endBeforeLowSurrogate(text, maxCharacters))
}

function segmentMixed(text: string): string[] {
  return segmentWindows(splitSegmentWindows(text))
}

/** The word-like segments of each window, in order. */
function segmentWindows(windows: readonly string[]): string[] {
  const words: string[] = []
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' })
  for (const window of windows) {
    for (const segment of segmenter.segment(window)) {
      if (segment.isWordLike) words.push(segment.segment)
    }
  }
  return words
}

/**
 * Windows of at most `segmentWindowCharacters`, each ending after the last space or punctuation
 * mark it holds (so words are rarely cut), or hard at the limit in an unbroken run. Every line
 * (through its newline) is cut on its own: a newline ends a word in every mode (UAX #29, WB3a/b),
 * so a text's lines are segmented as they are alone, and the terms of a joined context
 * (`segmentJoinedText`) are its parts' kept terms rather than a second segmenting of them.
 */
export function splitSegmentWindows(text: string): string[] {
  const windows: string[] = []
  let lineStart = 0
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline === -1 ? text.length : newline + 1
    pushLineWindows(windows, text, lineStart, lineEnd)
    lineStart = lineEnd
  }
  if (windows.length === 0) windows.push(text)
  return windows
}

/** The windows of `text` from `start` to `end` (one line and its newline). */
function pushLineWindows(windows: string[], text: string, start: number, end: number): void {
  while (end - start > segmentWindowCharacters) {
    let cut = start + segmentWindowCharacters
    const breakAt = findLastBreak(text, start + segmentWindowCharacters / 2, cut)
    cut = breakAt > 0 ? breakAt : endBeforeLowSurrogate(text, cut)
    windows.push(text.slice(start, cut))
    start = cut
  }
  windows.push(text.slice(start, end))
}

const breakPattern = /[\s\p{P}]/u

/** Index just after the last space or punctuation in [from, to), or -1. */
function findLastBreak(text: string, from: number, to: number): number {
  for (let index = to - 1; index >= from; index--) {
    if (breakPattern.test(text[index] as string)) return index + 1
  }
  return -1
}

/** `end`, moved back one when it would split a surrogate pair. */
function endBeforeLowSurrogate(text: string, end: number): number {
  const code = text.charCodeAt(end)
  return code >= 0xdc00 && code <= 0xdfff ? end - 1 : end
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
