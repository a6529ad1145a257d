/**
 * Every pattern from outside (a lorebook's `/regex/` key, a regex rule) compiles here: for RE2,
 * whose matching time is linear in the text for every pattern, and within a bound on its cost. RE2's
 * time is the text's length times the size of the pattern's program (`(?:[a-z]?){900}[0-9]` is 1,803
 * instructions and scans a character in up to 1,800 steps), so a pattern whose program is larger
 * than `maxInstructions` is refused, with its size in the message. One far past the bound is
 * refused on an estimate, without the compiling that would itself take long.
 */
import type { RE2JS } from 're2js'
import { estimatePatternSize } from './estimate-pattern-size.js'
import { loadRe2 } from './load-re2.js'

/** A pattern estimated at more than this many times the bound is refused without compiling. */
const estimateMargin = 8

/** JavaScript flags and their RE2 meaning; `g` is implied (a rule replaces every match), `u` too. */
const flagNames: Record<string, 'CASE_INSENSITIVE' | 'MULTILINE' | 'DOTALL' | undefined> = {
  g: undefined,
  u: undefined,
  i: 'CASE_INSENSITIVE',
  m: 'MULTILINE',
  s: 'DOTALL',
}

/** RE2 flag bits for JavaScript flags, or why one is not supported. */
export function readPatternFlags(flags: string): number | string {
  let bits = 0
  for (const flag of flags) {
    if (!Object.hasOwn(flagNames, flag)) return `flag "${flag}" is not supported (use g, i, m, s, u)`
    const name = flagNames[flag]
    if (name) bits |= loadRe2()[name]
  }
  return bits
}

/** Why a pattern cannot run on RE2, in words a pattern's author can act on; undefined when it can. */
function explainUnsupported(pattern: string): string | undefined {
  if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences (\\1, \\k<name>) are not supported'
  if (/\(\?<?[=!]/.test(pattern))
    return 'lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported'
  return undefined
}

export interface CompileBoundedPatternOptions {
  pattern: string
  /** RE2 flag bits (see `readPatternFlags`). */
  flags: number
  /** Most instructions of the compiled program. */
  maxInstructions: number
}

export interface BoundedPattern {
  regex: RE2JS
  /** The size of its program: what scanning one character may cost. */
  instructions: number
}

export interface RefusedPattern {
  problem: string
  /** Instructions compiled before the refusal (0 when it came before compiling): time it took. */
  compiled: number
}

/** The words of a refusal for cost, shared by every place that reports one. */
function describeCostlyPattern(instructions: number, maxInstructions: number, estimated = false): string {
  const size = estimated ? `about ${instructions}` : `${instructions}`
  return `the pattern is too costly (program of ${size} instructions; at most ${maxInstructions})`
}

/** The compiled pattern and its size, or why it is refused. */
export function compileBoundedPattern(
  options: CompileBoundedPatternOptions,
): BoundedPattern | RefusedPattern {
  const { pattern, maxInstructions } = options
  const unsupported = explainUnsupported(pattern)
  if (unsupported)
    return { problem: `${unsupported}: patterns run on a linear-time engine (RE2 syntax)`, compiled: 0 }
  let regex: RE2JS
  try {
    const re2 = loadRe2()
    // RE2 compiles the translated pattern (`[]` becomes a class of 20 characters): estimate that.
    const translated = re2.translateRegExp(pattern)
    const estimate = estimatePatternSize(translated)
    if (estimate > maxInstructions * estimateMargin)
      return { problem: describeCostlyPattern(estimate, maxInstructions, true), compiled: 0 }
    regex = re2.compile(translated, options.flags)
  } catch (error) {
    return { problem: `invalid regular expression (RE2 syntax): ${(error as Error).message}`, compiled: 0 }
  }
  const instructions = regex.programSize()
  if (instructions > maxInstructions)
    return { problem: describeCostlyPattern(instructions, maxInstructions), compiled: instructions }
  return { regex, instructions }
}
