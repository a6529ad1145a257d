/**
 * What a client says was heard of an interrupted reply becomes the character's stored words, which
 * go back to the model as its own and into long-term memory. So it is taken only as far as it
 * agrees with what the turn produced: the longest common prefix with the display text or with the
 * spoken sentences (speech filters may have dropped markup), never more. A `heard` that shares
 * nothing with the reply is not used at all; the sentences already emitted are stored instead.
 */
import { joinSentences } from './join-sentences.js'

export interface AcceptHeardTextOptions {
  heard: string
  /** The reply's display text as far as it was produced. */
  displayText: string
  /** The sentences emitted for speech. */
  sentences: readonly string[]
}

/** The part of `heard` the turn really produced, or undefined when it shares no prefix with it. */
export function acceptHeardText(options: AcceptHeardTextOptions): string | undefined {
  if (options.heard === '') return ''
  let best = ''
  for (const produced of [options.displayText, joinSentences(options.sentences)]) {
    const prefix = findCommonPrefix(options.heard, produced)
    if (prefix.length > best.length) best = prefix
  }
  return best === '' ? undefined : best
}

/** Characters compared at once before the character-by-character search of the first block that differs. */
const blockLength = 1024

/** The longest common prefix, never ending inside a surrogate pair. */
export function findCommonPrefix(left: string, right: string): string {
  const limit = Math.min(left.length, right.length)
  let index = 0
  // Whole blocks first, compared natively: an interrupted reply's heard text can be hundreds of
  // thousands of characters, and indexing a string built by `+=` one character at a time is slow.
  while (
    index + blockLength <= limit &&
    left.slice(index, index + blockLength) === right.slice(index, index + blockLength)
  )
    index += blockLength
  while (index < limit && left.charCodeAt(index) === right.charCodeAt(index)) index++
  const last = left.charCodeAt(index - 1)
  if (index > 0 && index < limit && last >= 0xd800 && last <= 0xdbff) index--
  return left.slice(0, index)
}
