/**
 * A lorebook made ready for scanning: one-word keys of entries that match whole words (the default,
 * as in SillyTavern) go into a word index, other plain keys into two keyword scanners (one over
 * lowercased text for case-insensitive keys, one as written), `/pattern/flags` keys compile for RE2
 * within their cost bounds (see `compileLorebookPatterns`). Compiled once per lorebook object,
 * which stays the same from turn to turn until the config is reloaded.
 *
 * A pattern's scan costs the size of its program times the characters it reads (RE2 is linear in
 * the text, but each character may step through every instruction), so a turn's pattern scans share
 * a budget counted in those units, `regexScanBudgetUnits` (a run's start counted too): the patterns
 * run in entry order, each on the newest characters of the text, and when the next would pass the
 * budget the scan stops there and the keys left are reported as skipped. The same text and lorebook
 * always skip the same keys.
 */
import {
  compileLorebookPatterns,
  isPatternKey,
  type LorebookKeyKind,
  type LorebookPattern,
} from '../../config/patterns/compile-lorebook-patterns.js'
import type { LorebookConfig, LorebookEntryConfig } from '../../config/schema.js'
import { createKeywordScanner, type KeywordScanner } from './create-keyword-scanner.js'
import { createWordIndex, isSingleWord } from './create-word-index.js'

/** Which keys of which entries a text holds. */
export interface LorebookHits {
  primary: Set<number>
  secondary: Set<number>
}

/** What the pattern scans of one turn may still spend, and what they left out. */
export interface PatternScanBudget {
  /** Work units (instructions × characters) left. */
  remaining: number
  /** Pattern keys not run for want of budget, over all scans sharing this budget. */
  skipped: number
}

export interface CompiledLorebook {
  /** The lorebook's entries, by the index hits refer to. */
  entries: readonly LorebookEntryConfig[]
  scan(text: string, hits: LorebookHits, budget: PatternScanBudget): void
  /** Keys that could not be compiled or are past the cost bounds, in words (they never match). */
  problems: string[]
}

interface KeyOwner {
  entry: number
  kind: LorebookKeyKind
}

/** Plain keys look at the newest this many characters of the scanned text (one pass, ~1 ms). */
export const maxScanChars = 50_000
/**
 * Work units (program instructions × characters read) all pattern keys together may spend in one
 * turn, recursion rounds included. RE2 took ~50 to ~190 ns a unit in the worst lorebooks measured
 * (a pattern whose DFA makes a new state at each character, on a loaded 2-core machine), so a
 * turn's pattern scans stay within about a tenth of a second whatever the lorebook; a lorebook of a
 * hundred ordinary patterns still has each read its newest few hundred characters.
 */
export const regexScanBudgetUnits = 1_000_000
/** Each run is charged as if it read this many more characters: the cost of starting one. */
export const regexRunOverheadChars = 100
/** Each pattern reads the newest characters: the budget shared by the patterns' sizes, at least this many. */
export const minRegexScanChars = 200

export function createPatternScanBudget(): PatternScanBudget {
  return { remaining: regexScanBudgetUnits, skipped: 0 }
}

const cache = new WeakMap<LorebookConfig, CompiledLorebook>()

function scanPatterns(
  patterns: readonly LorebookPattern[],
  totalInstructions: number,
  text: string,
  hits: LorebookHits,
  budget: PatternScanBudget,
): void {
  const share = Math.floor(regexScanBudgetUnits / Math.max(1, totalInstructions)) - regexRunOverheadChars
  const window = Math.max(minRegexScanChars, share)
  const newest = text.length > window ? text.slice(-window) : text
  for (const [index, pattern] of patterns.entries()) {
    if (hits[pattern.kind].has(pattern.entry)) continue
    const cost = pattern.instructions * (newest.length + regexRunOverheadChars)
    if (cost > budget.remaining) {
      budget.skipped += patterns.length - index
      return
    }
    budget.remaining -= cost
    if (pattern.regex.test(newest)) hits[pattern.kind].add(pattern.entry)
  }
}

function build(lorebook: LorebookConfig): CompiledLorebook {
  const insensitive: { key: string; owner: KeyOwner }[] = []
  const sensitive: { key: string; owner: KeyOwner }[] = []
  const words = createWordIndex<KeyOwner>()
  const patterns = compileLorebookPatterns(lorebook)
  lorebook.entries.forEach((entry, index) => {
    if (!entry.enabled) return
    const add = (key: string, kind: LorebookKeyKind) => {
      if (isPatternKey(key)) return
      if (entry.match_whole_words && isSingleWord(key))
        words.add(entry.case_sensitive ? key : key.toLowerCase(), entry.case_sensitive, {
          entry: index,
          kind,
        })
      else if (entry.case_sensitive) sensitive.push({ key, owner: { entry: index, kind } })
      else insensitive.push({ key: key.toLowerCase(), owner: { entry: index, kind } })
    }
    for (const key of entry.keys) add(key, 'primary')
    for (const key of entry.secondary_keys) add(key, 'secondary')
  })
  const scanners: [KeywordScanner, KeyOwner[], boolean][] = [
    [createKeywordScanner(insensitive.map((key) => key.key)), insensitive.map((key) => key.owner), true],
    [createKeywordScanner(sensitive.map((key) => key.key)), sensitive.map((key) => key.owner), false],
  ]
  return {
    entries: lorebook.entries,
    problems: patterns.issues.map((issue) => issue.message),
    scan(text, hits, budget) {
      const mark = (owner: KeyOwner) => hits[owner.kind].add(owner.entry)
      const newest = text.length > maxScanChars ? text.slice(-maxScanChars) : text
      let lowered: string | undefined
      const lower = () => {
        lowered ??= newest.toLowerCase()
        return lowered
      }
      for (const [scanner, owners, insensitive] of scanners) {
        if (owners.length === 0) continue
        scanner.scan(insensitive ? lower() : newest, (id) => mark(owners[id]!))
      }
      words.scan(newest, lower, mark)
      if (patterns.patterns.length > 0)
        scanPatterns(patterns.patterns, patterns.instructions, newest, hits, budget)
    },
  }
}

export function compileLorebook(lorebook: LorebookConfig): CompiledLorebook {
  let compiled = cache.get(lorebook)
  if (!compiled) {
    compiled = build(lorebook)
    cache.set(lorebook, compiled)
  }
  return compiled
}
