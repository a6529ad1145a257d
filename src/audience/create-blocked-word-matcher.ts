/**
 * Finds the blocked words in chat text in one pass over each of its normalized forms, however many
 * words there are: one Aho–Corasick automaton over every word's forms, built once per word list.
 *
 * A word is found when its `folded` form is in the text's `folded` form, its `compact` form in the
 * text's `compact` form, or its skeleton in either of the text's skeletons (`normalizeChatText`
 * says why each form exists). Forms are compared as UTF-16 code units, as `String#includes` does.
 * The found word is the first of the list the text holds, whichever form it was found by.
 */
import { createWordAutomatonBuilder, type WordAutomaton } from './create-word-automaton.js'
import { type NormalizedText, normalizeChatText } from './normalize-chat-text.js'

export interface BlockedWordMatcher {
  /** The first word of the list the text holds, as its `folded` form; `undefined` when none. */
  find(text: NormalizedText): string | undefined
}

/** The kinds of pattern, one per form of a word, and their bits in a search's mask. */
const foldedKind = 0
const compactKind = 1
const skeletonKind = 2
const folded = 1 << foldedKind
const compact = 1 << compactKind
const skeleton = 1 << skeletonKind

// The config keeps one array per word list until it is reloaded: every selector on it shares one automaton.
const built = new WeakMap<readonly string[], BlockedWordMatcher>()

export function createBlockedWordMatcher(words: readonly string[]): BlockedWordMatcher {
  let matcher = built.get(words)
  if (!matcher) {
    matcher = buildMatcher(words.map(normalizeChatText))
    built.set(words, matcher)
  }
  return matcher
}

function buildMatcher(words: readonly NormalizedText[]): BlockedWordMatcher {
  if (words.length === 0) return { find: () => undefined }
  const builder = createWordAutomatonBuilder({ kinds: 3 })
  for (const [index, word] of words.entries()) {
    // An empty form blocks nothing (a word of punctuation only has no compact form).
    builder.add(word.folded, foldedKind, index)
    builder.add(word.compact, compactKind, index)
    builder.add(word.skeleton, skeletonKind, index)
  }
  const automaton = builder.build()
  return {
    find(text) {
      const first = searchForms(automaton, text)
      return first === Number.POSITIVE_INFINITY ? undefined : words[first]!.folded
    },
  }
}

/**
 * Each distinct form of the text searched once, for every kind of word form it is compared with:
 * in most chat lines two or more forms are alike (no spaces, no capitals, no look-alikes).
 */
function searchForms(automaton: WordAutomaton, text: NormalizedText): number {
  let first = automaton.findFirst(text.folded, kindsComparedWith(text.folded, text) | folded)
  if (text.compact !== text.folded) {
    first = Math.min(first, automaton.findFirst(text.compact, kindsComparedWith(text.compact, text)))
  }
  const { skeleton: skeletonText, casedSkeleton } = text
  if (skeletonText !== text.folded && skeletonText !== text.compact) {
    first = Math.min(first, automaton.findFirst(skeletonText, skeleton))
  }
  if (casedSkeleton !== text.folded && casedSkeleton !== text.compact && casedSkeleton !== skeletonText) {
    first = Math.min(first, automaton.findFirst(casedSkeleton, skeleton))
  }
  return first
}

/** The kinds of word form compared with the text's compact form or skeletons that `form` equals. */
function kindsComparedWith(form: string, text: NormalizedText): number {
  const asCompact = form === text.compact ? compact : 0
  return asCompact | (form === text.skeleton || form === text.casedSkeleton ? skeleton : 0)
}
