/**
 * Chat text as the selector compares it: NFKC (full-width letters are letters), lower case, and a
 * second form without spaces and punctuation, so `b a d` and `ｂａｄ!` are the same word as `bad`.
 * Blocked words are compared on one more form, the text's skeleton (Unicode TS #39): invisible
 * (default-ignorable) characters and combining marks dropped and look-alikes mapped to one
 * prototype, so `sp\u200bam`, `加\u200b群` and a Cyrillic `spаm` are the words they pretend not to be.
 */
import { createRequire } from 'node:module'

// The confusables table is loaded with the first chat line: `import('charpipe')` loads no dependency.
const require = createRequire(import.meta.url)
let loadedUnhomoglyph: ((text: string) => string) | undefined
const unhomoglyph = (text: string): string => {
  loadedUnhomoglyph ??= require('unhomoglyph') as (text: string) => string
  return loadedUnhomoglyph(text)
}

export interface NormalizedText {
  folded: string
  /** `folded` with every space, punctuation mark and symbol removed. */
  compact: string
  /** `compact` as its TS #39 skeleton (for blocked words only: it is not meant to be read). */
  skeleton: string
  /**
   * The skeleton taken before lower-casing: Greek and Cyrillic capitals map to Latin capitals
   * (`ΒΑD` → `bad`), which their lower case (`βαd`) does not.
   */
  casedSkeleton: string
}

const separators = /[\s\p{P}\p{S}]+/gu
const invisibleOrMark = /[\p{Default_Ignorable_Code_Point}\p{M}]+/gu

export function normalizeChatText(text: string): NormalizedText {
  const compatible = text.normalize('NFKC')
  const folded = compatible.toLowerCase()
  const compact = folded.replace(separators, '')
  const cased = compatible.replace(separators, '')
  const skeleton = foldSkeleton(compact)
  // Most chat lines have no capitals: their two skeletons are one.
  return { folded, compact, skeleton, casedSkeleton: cased === compact ? skeleton : foldSkeleton(cased) }
}

/** The TS #39 skeleton of a text, lower-cased, with no invisible characters or combining marks. */
function foldSkeleton(text: string): string {
  const bare = text.normalize('NFD').replace(invisibleOrMark, '')
  // Prototypes may be upper case (`I` → `l`, Greek capitals → Latin ones); the lower case of both sides compares.
  return unhomoglyph(bare).toLowerCase().replace(invisibleOrMark, '')
}
