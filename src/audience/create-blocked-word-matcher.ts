/**
 * Finds the blocked words in chat text in one pass over each of its normalized forms, however many
 * words there are: one Aho–Corasick automaton over every word's forms, built once per word list.
 *
 * A word is found when its `folded` form is in the text's `folded` form, its `compact` form in the
 * text's `compact` form, or its skeleton in either of the text's skeletons (`normalizeChatText`
 * says why each form exists). Forms are compared as UTF-16 code units, as `String#includes` does.
 * The found word is the first of the list the text holds, whichever form it was found by.
 */
import { type NormalizedText, normalizeChatText } from './normalize-chat-text.js'

export interface BlockedWordMatcher {
  /** The first word of the list the text holds, as its `folded` form; `undefined` when none. */
  find(text: NormalizedText): string | undefined
}

/** Which form of a word a pattern is; a text form is searched for the kinds it compares with. */
const folded = 1
const compact = 2
const skeleton = 4
const kinds = [folded, compact, skeleton] as const
type Kind = (typeof kinds)[number]

const none = Number.MAX_SAFE_INTEGER

interface Automaton {
  /** Per node: the next node for a UTF-16 code unit. Node 0 is the root. */
  next: Map<number, number>[]
  /** Per node: the node of its longest proper suffix in the trie. */
  fallback: number[]
  /** Per kind, per node: the lowest word index of that kind ending here or at a suffix; `none`. */
  firstWord: Record<Kind, number[]>
}

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
  const automaton = createAutomaton()
  for (const [index, word] of words.entries()) {
    addPattern(automaton, word.folded, folded, index)
    addPattern(automaton, word.compact, compact, index)
    addPattern(automaton, word.skeleton, skeleton, index)
  }
  linkFallbacks(automaton)
  if (automaton.next.length === 1) return { find: () => undefined }
  return {
    find(text) {
      const first = searchForms(automaton, text)
      return first === none ? undefined : words[first]!.folded
    },
  }
}

function createAutomaton(): Automaton {
  return {
    next: [new Map()],
    fallback: [0],
    firstWord: { [folded]: [none], [compact]: [none], [skeleton]: [none] },
  }
}

function addPattern(automaton: Automaton, pattern: string, kind: Kind, index: number): void {
  // An empty form blocks nothing (a word of punctuation only has no compact form).
  if (pattern === '') return
  let node = 0
  for (let position = 0; position < pattern.length; position++) {
    const unit = pattern.charCodeAt(position)
    let child = automaton.next[node]!.get(unit)
    if (child === undefined) {
      child = automaton.next.length
      automaton.next.push(new Map())
      automaton.fallback.push(0)
      for (const each of kinds) automaton.firstWord[each].push(none)
      automaton.next[node]!.set(unit, child)
    }
    node = child
  }
  const firstWord = automaton.firstWord[kind]
  firstWord[node] = Math.min(firstWord[node]!, index)
}

/** Breadth first, so a node's fallback is complete before its children's are computed. */
function linkFallbacks(automaton: Automaton): void {
  const { next, fallback, firstWord } = automaton
  const queue: number[] = [...next[0]!.values()]
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!
    for (const [unit, child] of next[node]!) {
      let candidate = fallback[node]!
      while (candidate !== 0 && !next[candidate]!.has(unit)) candidate = fallback[candidate]!
      fallback[child] = next[candidate]!.get(unit) ?? 0
      queue.push(child)
    }
    // A word ending at a suffix of this node ends here too.
    for (const kind of kinds)
      firstWord[kind][node] = Math.min(firstWord[kind][node]!, firstWord[kind][fallback[node]!]!)
  }
}

/**
 * Each distinct form of the text searched once, for every kind of word form it is compared with:
 * in most chat lines two or more forms are alike (no spaces, no capitals, no look-alikes).
 */
function searchForms(automaton: Automaton, text: NormalizedText): number {
  let first = search(automaton, text.folded, kindsComparedWith(text.folded, text) | folded)
  if (text.compact !== text.folded) {
    first = Math.min(first, search(automaton, text.compact, kindsComparedWith(text.compact, text)))
  }
  const { skeleton: skeletonText, casedSkeleton } = text
  if (skeletonText !== text.folded && skeletonText !== text.compact) {
    first = Math.min(first, search(automaton, skeletonText, skeleton))
  }
  if (casedSkeleton !== text.folded && casedSkeleton !== text.compact && casedSkeleton !== skeletonText) {
    first = Math.min(first, search(automaton, casedSkeleton, skeleton))
  }
  return first
}

/** The kinds of word form compared with the text's compact form or skeletons that `form` equals. */
function kindsComparedWith(form: string, text: NormalizedText): number {
  const asCompact = form === text.compact ? compact : 0
  return asCompact | (form === text.skeleton || form === text.casedSkeleton ? skeleton : 0)
}

/** The lowest index of a word whose form of one of `kindMask`'s kinds is in `form`; `none`. */
function search(automaton: Automaton, form: string, kindMask: number): number {
  const { next, fallback, firstWord } = automaton
  let first = none
  let node = 0
  for (let position = 0; position < form.length; position++) {
    const unit = form.charCodeAt(position)
    let child = next[node]!.get(unit)
    while (child === undefined && node !== 0) {
      node = fallback[node]!
      child = next[node]!.get(unit)
    }
    node = child ?? 0
    if (kindMask & folded) first = Math.min(first, firstWord[folded][node]!)
    if (kindMask & compact) first = Math.min(first, firstWord[compact][node]!)
    if (kindMask & skeleton) first = Math.min(first, firstWord[skeleton][node]!)
  }
  return first
}
