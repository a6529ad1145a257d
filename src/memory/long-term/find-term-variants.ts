/**
 * Query expansion from the question's own words: other forms of each English word that the
 * stemmer keeps apart ("adoption" and "adopt", "healthy" and "health", "broken" and "broke",
 * "dance" and "dancer"), kept only when the searched memories hold them. A variant counts for
 * `weight` of its word: it makes a memory findable, never as strongly as the word itself.
 *
 * Variants are made by taking one derivational ending off a word and putting each ending on the
 * bare word, then stemming the result as the index does; this is a guess at English morphology,
 * and the index decides which guesses are words. Irregular forms ("go" and "went", "child" and
 * "children") come from a list (`findIrregularForms`).
 */
import { findIrregularForms } from './english-irregular-forms.js'
import type { MemoryTermIndex } from './memory-term-index.js'
import { stemEnglishWord } from './stem-english-word.js'

/** Endings that make one English word from another; longest first so "ation" goes before "ion". */
const endings = [
  'ation',
  'ness',
  'ment',
  'ance',
  'ence',
  'able',
  'ful',
  'ion',
  'ist',
  'ity',
  'ive',
  'ous',
  'ical',
  'ic',
  'al',
  'er',
  'or',
  'en',
  'ly',
  'y',
]

/** Endings as the stemmer leaves them ("creative" → "creativ"): only taken off, never put on. */
const stemmedEndings = ['abl', 'anc', 'enc', 'iv']

/** Shortest bare word a variant is made from: shorter ones give more false relatives ("bus"/"busy"). */
const minimumBase = 4

export interface FindTermVariantsOptions {
  /** The query's terms (as `segmentText` makes them). */
  terms: readonly string[]
  partitions: readonly MemoryTermIndex[]
  /** Weight of a variant against its word (1). */
  weight: number
}

/** Variant term → weight; none for a word the index holds no other form of. */
export function findTermVariants(options: FindTermVariantsOptions): Map<string, number> {
  const variants = new Map<string, number>()
  if (options.weight <= 0) return variants
  const query = new Set(options.terms)
  for (const term of options.terms) {
    if (!/^[a-z]+$/.test(term)) continue
    for (const variant of [...findIrregularForms(term), ...makeVariants(term)]) {
      if (query.has(variant) || variants.has(variant)) continue
      if (options.partitions.some((partition) => partition.countDocuments(variant) > 0))
        variants.set(variant, options.weight)
    }
  }
  return variants
}

/** Stemmed forms related to a stemmed term by one derivational ending. */
export function makeVariants(term: string): Set<string> {
  const bases = new Set<string>()
  if (term.length >= minimumBase) bases.add(term)
  for (const ending of [...endings, ...stemmedEndings]) {
    if (!term.endsWith(ending)) continue
    const base = term.slice(0, -ending.length)
    if (base.length >= minimumBase - 1) bases.add(base)
    // "happi" (happiness) → "happy"; "creativ" (creative) → "creat".
    if (base.endsWith('i')) bases.add(`${base.slice(0, -1)}y`)
  }
  const variants = new Set<string>()
  for (const base of bases) {
    if (base !== term) variants.add(stemEnglishWord(base))
    const bare = base.endsWith('y') ? base.slice(0, -1) : base
    for (const ending of endings) {
      const joined = ending === 'y' || !base.endsWith('y') ? `${base}${ending}` : `${bare}i${ending}`
      variants.add(stemEnglishWord(joined))
    }
  }
  variants.delete(term)
  return variants
}
