/**
 * Which lorebook entries a turn injects: constants, and entries with a key in the scanned text (a
 * selective one needs one of its secondary keys too). With `recursive`, the content of triggered
 * entries is scanned for further keys, a bounded number of rounds, each over the new content only.
 * Entries with a higher `insertion_order` are kept first while the token budget lasts, and the kept
 * ones are returned in placement order (lower order first), and at most `maxLorebookOutputChars`
 * of them are counted and injected. The rounds share one budget for the pattern keys' scans, and
 * each reads only the newest content the scan looks at, so recursion cannot multiply their cost.
 */
import type { LorebookConfig, LorebookEntryConfig } from '../../config/schema.js'
import {
  type CompiledLorebook,
  compileLorebook,
  createPatternScanBudget,
  type LorebookHits,
  maxScanChars,
  regexScanBudgetUnits,
} from './compile-lorebook.js'

export interface SelectLorebookEntriesOptions {
  lorebook: LorebookConfig
  /** The scanned messages' text, newest last. */
  text: string
  countTokens(text: string): number
  /** Rounds of recursive scanning at most. */
  maxRecursion: number
}

export interface SelectLorebookEntriesResult {
  entries: LorebookEntryConfig[]
  /** Triggered entries left out for the budget. */
  dropped: LorebookEntryConfig[]
  problems: string[]
  /** Pattern key runs left out because the turn's pattern scan budget ran out (see `regexScanBudgetUnits`). */
  skippedPatterns: number
}

/**
 * Characters of entries one turn counts the tokens of and may inject, whatever `token_budget` says:
 * a card of 5,000 constant entries would otherwise have 5 million characters tokenized every turn.
 */
export const maxLorebookOutputChars = 400_000

/** The texts joined by newlines, only as far back as the scan reads (its newest `maxChars`). */
function joinNewest(texts: readonly string[], maxChars: number): string {
  const newest: string[] = []
  let length = 0
  for (let index = texts.length - 1; index >= 0 && length < maxChars; index--) {
    newest.push(texts[index]!)
    length += texts[index]!.length + 1
  }
  return newest.reverse().join('\n')
}

function findTriggered(compiled: CompiledLorebook, hits: LorebookHits, taken: Set<number>): number[] {
  const triggered: number[] = []
  compiled.entries.forEach((entry, index) => {
    if (!entry.enabled || taken.has(index)) return
    const keyed =
      hits.primary.has(index) &&
      (!entry.selective || entry.secondary_keys.length === 0 || hits.secondary.has(index))
    if (entry.constant || keyed) triggered.push(index)
  })
  return triggered
}

export function selectLorebookEntries(options: SelectLorebookEntriesOptions): SelectLorebookEntriesResult {
  const compiled = compileLorebook(options.lorebook)
  const hits: LorebookHits = { primary: new Set(), secondary: new Set() }
  const scanBudget = createPatternScanBudget()
  compiled.scan(options.text, hits, scanBudget)
  const taken = new Set<number>()
  let fresh = findTriggered(compiled, hits, taken)
  for (let round = 0; fresh.length > 0; round++) {
    for (const index of fresh) taken.add(index)
    if (!options.lorebook.recursive || round >= options.maxRecursion) break
    compiled.scan(
      joinNewest(
        fresh.map((index) => compiled.entries[index]!.content),
        maxScanChars,
      ),
      hits,
      scanBudget,
    )
    fresh = findTriggered(compiled, hits, taken)
  }

  const byOrder = [...taken].sort(
    (a, b) => compiled.entries[b]!.insertion_order - compiled.entries[a]!.insertion_order || a - b,
  )
  const kept: number[] = []
  const dropped: LorebookEntryConfig[] = []
  let budget = options.lorebook.token_budget
  let counted = 0
  for (const index of byOrder) {
    const entry = compiled.entries[index]!
    // Characters are bounded before any token is counted: counting is the slow part.
    if (counted + entry.content.length > maxLorebookOutputChars) {
      dropped.push(entry)
      continue
    }
    counted += entry.content.length
    const tokens = options.countTokens(entry.content)
    if (tokens <= budget) {
      budget -= tokens
      kept.push(index)
    } else dropped.push(entry)
  }
  kept.sort((a, b) => compiled.entries[a]!.insertion_order - compiled.entries[b]!.insertion_order || a - b)
  const problems =
    scanBudget.skipped > 0
      ? [
          ...compiled.problems,
          `the pattern keys' scan stopped at its budget of ${regexScanBudgetUnits} units (instructions × characters): ${scanBudget.skipped} pattern key runs left out, the last in entry order`,
        ]
      : compiled.problems
  return {
    entries: kept.map((index) => compiled.entries[index]!),
    dropped,
    problems,
    skippedPatterns: scanBudget.skipped,
  }
}
