/**
 * Chat text as the selector compares it: NFKC (full-width letters are letters), lower case, and a
 * second form without spaces and punctuation, so `b a d` and `ｂａｄ!` are the same word as `bad`.
 */
export interface NormalizedText {
  folded: string
  /** `folded` with every space, punctuation mark and symbol removed. */
  compact: string
}

const separators = /[\s\p{P}\p{S}]+/gu

export function normalizeChatText(text: string): NormalizedText {
  const folded = text.normalize('NFKC').toLowerCase()
  return { folded, compact: folded.replace(separators, '') }
}

/** The blocked word found in a text, if any (`words` normalized with `normalizeChatText` first). */
export function findBlockedWord(text: NormalizedText, words: readonly NormalizedText[]): string | undefined {
  for (const word of words) {
    if (word.folded && text.folded.includes(word.folded)) return word.folded
    if (word.compact && text.compact.includes(word.compact)) return word.folded
  }
  return undefined
}
