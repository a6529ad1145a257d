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
/**
 * The same list in another array (the engine and the connectors each parse the config they are
 * given) finds the automaton by its words, as long as an array in use still holds it.
 */
const byWords = new Map<string, WeakRef<BlockedWordMatcher>>()

const wordsKey = (words: readonly string[]) => JSON.stringify(words)

function findBuilt(words: readonly string[]): BlockedWordMatcher | undefined {
  const matcher = built.get(words) ?? byWords.get(wordsKey(words))?.deref()
  if (matcher) built.set(words, matcher)
  return matcher
}

function keepBuilt(words: readonly string[], matcher: BlockedWordMatcher): void {
  built.set(words, matcher)
  for (const [key, held] of byWords) if (!held.deref()) byWords.delete(key)
  byWords.set(wordsKey(words), new WeakRef(matcher))
}

/** Words normalized and added between two steps of a build. */
const wordsPerStep = 4

export function createBlockedWordMatcher(words: readonly string[]): BlockedWordMatcher {
  let matcher = findBuilt(words)
  if (!matcher) {
    const steps = buildMatcher(words)
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) {
        matcher = step.value
        break
      }
    }
    keepBuilt(words, matcher)
  }
  return matcher
}

/** Runs `work` in a later turn of the event loop (the engine's slice queue). */
export type RunSlice = <Result>(work: () => Result) => Promise<Result>

export interface PrepareBlockedWordMatcherOptions {
  runSlice: RunSlice
  /** Milliseconds of building per slice. @default 4 */
  sliceMs?: number
  /** @default performance.now */
  now?: () => number
}

/**
 * Builds a list's matcher ahead of its first message, in slices of `sliceMs`: the largest list the
 * schema takes (10,000 words of 200 characters) costs seconds to build, which in one piece would
 * hold the event loop (every socket, every turn) that long. Later `createBlockedWordMatcher` calls
 * for the same array get the matcher built here.
 */
export async function prepareBlockedWordMatcher(
  words: readonly string[],
  options: PrepareBlockedWordMatcherOptions,
): Promise<BlockedWordMatcher> {
  const ready = findBuilt(words)
  if (ready) return ready
  const now = options.now ?? (() => performance.now())
  const sliceMs = options.sliceMs ?? 4
  const steps = buildMatcher(words)
  for (;;) {
    const matcher = await options.runSlice(() => {
      const until = now() + sliceMs
      for (;;) {
        const step = steps.next()
        if (step.done) return step.value
        if (now() >= until) return undefined
      }
    })
    if (!matcher) continue
    // A message may have needed the list meanwhile and built it at once: keep the one in use.
    const first = findBuilt(words) ?? matcher
    keepBuilt(words, first)
    return first
  }
}

function* buildMatcher(list: readonly string[]): Generator<void, BlockedWordMatcher> {
  if (list.length === 0) return { find: () => undefined }
  const words: NormalizedText[] = []
  let capacity = 0
  for (const [index, listed] of list.entries()) {
    if (index % wordsPerStep === wordsPerStep - 1) yield
    const word = normalizeChatText(listed)
    words.push(word)
    capacity += formsLength(word)
  }
  const builder = createWordAutomatonBuilder({ kinds: 3, capacity })
  for (const [index, word] of words.entries()) {
    if (index % wordsPerStep === wordsPerStep - 1) yield
    // An empty form blocks nothing (a word of punctuation only has no compact form).
    builder.add(word.folded, foldedKind, index)
    builder.add(word.compact, compactKind, index)
    builder.add(word.skeleton, skeletonKind, index)
  }
  const automaton = yield* builder.buildInSteps()
  return {
    find(text) {
      const first = searchForms(automaton, text)
      return first === Number.POSITIVE_INFINITY ? undefined : words[first]!.folded
    },
  }
}

/** The code units of a word's distinct forms: at most the trie nodes it adds. */
function formsLength(word: NormalizedText): number {
  let length = word.folded.length
  if (word.compact !== word.folded) length += word.compact.length
  if (word.skeleton !== word.folded && word.skeleton !== word.compact) length += word.skeleton.length
  return length
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
