/**
 * A lorebook made ready for scanning: one-word keys of entries that match whole words (the default,
 * as in SillyTavern) go into a word index, other plain keys into two keyword scanners (one over
 * lowercased text for case-insensitive keys, one as written), `/pattern/flags` keys compile for RE2 (linear
 * time whatever the pattern, like the regex processor's rules). Compiled once per lorebook object,
 * which stays the same from turn to turn until the config is reloaded.
 */
import type { RE2JS } from 're2js'
import type { LorebookConfig, LorebookEntryConfig } from '../../config/schema.js'
import { compilePattern, readFlags } from '../regex/compile-regex-rules.js'
import { createKeywordScanner, type KeywordScanner } from './create-keyword-scanner.js'
import { createWordIndex, isSingleWord } from './create-word-index.js'

/** Which keys of which entries a text holds. */
export interface LorebookHits {
  primary: Set<number>
  secondary: Set<number>
}

export interface CompiledLorebook {
  /** The lorebook's entries, by the index hits refer to. */
  entries: readonly LorebookEntryConfig[]
  scan(text: string, hits: LorebookHits): void
  /** Keys that could not be compiled, in words (they never match). */
  problems: string[]
}

type KeyKind = 'primary' | 'secondary'
interface KeyOwner {
  entry: number
  kind: KeyKind
}
interface RegexKey extends KeyOwner {
  regex: RE2JS
}

const regexKey = /^\/(.+)\/([a-z]*)$/s

/** Plain keys look at the newest this many characters of the scanned text (one pass, ~1 ms). */
export const maxScanChars = 50_000
/**
 * Characters all `/regex/` keys together may scan in one call: each RE2 run is linear but costs
 * about 50 ns a character, so with many regex keys each looks at a shorter newest part of the text
 * (never less than `minRegexScanChars`). Keeps a turn's scan within a few ms whatever the lorebook.
 */
export const regexScanBudgetChars = 400_000
export const minRegexScanChars = 2_000
const cache = new WeakMap<LorebookConfig, CompiledLorebook>()

function compileRegexKey(key: string): RE2JS | string | undefined {
  const match = regexKey.exec(key)
  if (!match) return undefined
  const flags = readFlags(match[2]!)
  return typeof flags === 'string' ? flags : compilePattern(match[1]!, flags)
}

function build(lorebook: LorebookConfig): CompiledLorebook {
  const insensitive: { key: string; owner: KeyOwner }[] = []
  const sensitive: { key: string; owner: KeyOwner }[] = []
  const regexes: RegexKey[] = []
  const words = createWordIndex<KeyOwner>()
  const problems: string[] = []
  lorebook.entries.forEach((entry, index) => {
    if (!entry.enabled) return
    const add = (key: string, kind: KeyKind) => {
      const regex = compileRegexKey(key)
      if (typeof regex === 'string') problems.push(`entry ${index} key ${key}: ${regex}`)
      else if (regex) regexes.push({ entry: index, kind, regex })
      else if (entry.match_whole_words && isSingleWord(key))
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
    problems,
    scan(text, hits) {
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
      if (regexes.length === 0) return
      const window = Math.max(minRegexScanChars, Math.floor(regexScanBudgetChars / regexes.length))
      const regexText = newest.length > window ? newest.slice(-window) : newest
      for (const key of regexes) if (!hits[key.kind].has(key.entry) && key.regex.test(regexText)) mark(key)
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
