/**
 * The `/pattern/flags` keys of a lorebook, compiled for RE2 within their cost bounds: each key's
 * program at most `characterLimits.patternInstructions`, all keys' programs together at most
 * `lorebookPatternInstructions`, refused ones counted too (compiling costs time in proportion, and
 * past the bound the later keys are not compiled at all). The config check refuses a
 * lorebook with any issue, naming the entry and the key; the lorebook's scan leaves such keys out
 * and reports them. Compiled once per lorebook object: the config check and the turns that follow
 * share the result.
 */
import type { RE2JS } from 're2js'
import { characterLimits } from '../schema/character-limits.js'
import type { LorebookConfig } from '../schema.js'
import {
  type BoundedPattern,
  compileBoundedPattern,
  type RefusedPattern,
  readPatternFlags,
} from './compile-bounded-pattern.js'

export type LorebookKeyKind = 'primary' | 'secondary'

export interface LorebookPattern {
  entry: number
  kind: LorebookKeyKind
  regex: RE2JS
  instructions: number
}

export interface LorebookPatternIssue {
  /** Relative to the lorebook, e.g. `entries.3.keys.2`. */
  path: string
  /** Names the entry and the key: `lorebook entry 3 ("Dragons"), key 2: …`. */
  message: string
}

export interface CompiledLorebookPatterns {
  /** The keys that compiled within the bounds, in entry order (primary keys before secondary ones). */
  patterns: LorebookPattern[]
  issues: LorebookPatternIssue[]
  /** Instructions of all compiled patterns together. */
  instructions: number
}

const patternKey = /^\/(.+)\/([a-z]*)$/s
const cache = new WeakMap<LorebookConfig, CompiledLorebookPatterns>()

/** Whether a key is written as a pattern (`/…/flags`) rather than as a word. */
export function isPatternKey(key: string): boolean {
  return patternKey.test(key)
}

function describeKey(lorebook: LorebookConfig, entry: number, kind: LorebookKeyKind, key: number): string {
  const name = lorebook.entries[entry]!.name
  const label = name ? `lorebook entry ${entry} (${JSON.stringify(name)})` : `lorebook entry ${entry}`
  return `${label}, ${kind === 'primary' ? 'key' : 'secondary key'} ${key}`
}

function compileKey(key: string): BoundedPattern | RefusedPattern | undefined {
  const match = patternKey.exec(key)
  if (!match) return undefined
  const flags = readPatternFlags(match[2]!)
  if (typeof flags === 'string') return { problem: flags, compiled: 0 }
  return compileBoundedPattern({
    pattern: match[1]!,
    flags,
    maxInstructions: characterLimits.patternInstructions,
  })
}

function compileAll(lorebook: LorebookConfig): CompiledLorebookPatterns {
  const result: CompiledLorebookPatterns = { patterns: [], issues: [], instructions: 0 }
  const total = characterLimits.lorebookPatternInstructions
  // Instructions compiled so far, refused ones included: what compiling has cost.
  let compiled = 0
  for (const [index, entry] of lorebook.entries.entries()) {
    if (!entry.enabled) continue
    const lists = [
      ['primary', entry.keys, 'keys'],
      ['secondary', entry.secondary_keys, 'secondary_keys'],
    ] as const
    for (const [kind, keys, field] of lists) {
      for (const [position, key] of keys.entries()) {
        const outcome = compileKey(key)
        if (outcome === undefined) continue
        const report = (problem: string) =>
          result.issues.push({
            path: `entries.${index}.${field}.${position}`,
            message: `${describeKey(lorebook, index, kind, position)}: ${problem}`,
          })
        compiled += 'problem' in outcome ? outcome.compiled : outcome.instructions
        if (compiled > total) {
          // The keys after this one are not compiled at all: that time is what the bound saves.
          report(
            `the lorebook's patterns compile to more than ${total} instructions together; this key and the later ones are not used`,
          )
          return result
        }
        if ('problem' in outcome) report(outcome.problem)
        else {
          result.instructions += outcome.instructions
          result.patterns.push({ entry: index, kind, ...outcome })
        }
      }
    }
  }
  return result
}

export function compileLorebookPatterns(lorebook: LorebookConfig): CompiledLorebookPatterns {
  let compiled = cache.get(lorebook)
  if (!compiled) {
    compiled = compileAll(lorebook)
    cache.set(lorebook, compiled)
  }
  return compiled
}
