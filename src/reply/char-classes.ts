/**
 * Character classes of the sentence splitter, as one lookup table over UTF-16 code units, so the hot
 * loop does a single array read per character instead of a chain of comparisons or a regex.
 */

export const CharClass = {
  Other: 0,
  Whitespace: 1,
  Newline: 2,
  /** Ends a sentence wherever it stands: 。！？!?；; */
  Terminator: 3,
  /** `.`: ends a sentence only before whitespace or the end, and not in numbers, ellipses or abbreviations. */
  Dot: 4,
  /** Stays with the sentence it follows: ～~…⋯ */
  Trailing: 5,
  /** Closes a quote or bracket: 」』”’）)]】》〉 */
  Closer: 6,
  /** Opens a quote or bracket: 「『“‘（([【《〈 */
  Opener: 7,
  /** ASCII `"`: opens or closes by parity. */
  StraightQuote: 8,
  /** Where `max_chars` and `first_clause_chars` may cut: ，、,： */
  Comma: 9,
  Digit: 10,
  Letter: 11,
} as const

export type CharClassValue = (typeof CharClass)[keyof typeof CharClass]

/** Opener → the closer that ends it. */
const bracketPairs: Record<string, string> = {
  '「': '」',
  '『': '』',
  '“': '”',
  '‘': '’',
  '（': '）',
  '(': ')',
  '[': ']',
  '【': '】',
  '《': '》',
  '〈': '〉',
}

/**
 * What `\s` matches, listed (ECMAScript WhiteSpace and LineTerminator: tab, vertical tab, form feed,
 * BOM, the space separators, and the line ends): testing all 65,536 code units against `/\s/` took
 * about 10 ms of every `import('charpipe')`. A test checks the list against `/\s/`.
 */
export const whitespaceCharacters =
  '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'

function buildTable(): Uint8Array {
  const table = new Uint8Array(0x10000)
  const assign = (characters: string, value: CharClassValue) => {
    for (const character of characters) table[character.charCodeAt(0)] = value
  }
  assign(whitespaceCharacters, CharClass.Whitespace)
  assign('\n\u2028\u2029', CharClass.Newline)
  assign('。！？!?；;｡', CharClass.Terminator)
  assign('.', CharClass.Dot)
  assign('～~…⋯', CharClass.Trailing)
  assign(Object.values(bracketPairs).join(''), CharClass.Closer)
  assign(Object.keys(bracketPairs).join(''), CharClass.Opener)
  assign('"', CharClass.StraightQuote)
  assign('，、,：', CharClass.Comma)
  assign('0123456789', CharClass.Digit)
  assign('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', CharClass.Letter)
  return table
}

export const charClassTable = buildTable()

const closerByOpener = new Map<number, number>(
  Object.entries(bracketPairs).map(([open, close]) => [open.charCodeAt(0), close.charCodeAt(0)]),
)

/** The closer that matches an opener's code unit. */
export function findCloser(opener: number): number {
  return closerByOpener.get(opener) ?? opener
}

/** Low surrogates continue a code point; everything else starts one. */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

/** Abbreviations whose `.` does not end a sentence (lower case, without the final dot). */
const abbreviations = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'vs',
  'mt',
  'fig',
  'approx',
  'dept',
  'inc',
  'ltd',
  'co',
  'cf',
  'al',
  'e.g',
  'i.e',
  'u.s',
  'u.k',
  'u.n',
  'a.m',
  'p.m',
])

/** `U.S`, `e.g`, `a.b.c`: a short token with inner dots between one- or two-letter parts. */
export function isAbbreviation(token: string): boolean {
  const lower = token.toLowerCase()
  if (abbreviations.has(lower)) return true
  if (!lower.includes('.')) return false
  return lower.split('.').every((part) => part.length >= 1 && part.length <= 2)
}
