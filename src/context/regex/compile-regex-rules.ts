/**
 * Regex rules of the regex processor: `{pattern, flags, replacement, scope, enabled}`. Scope says
 * where a rule applies: `input` (the current user message), `history` (stored messages) and
 * `output-display` (the reply's display text, applied by the engine). Compiled rules are cached by
 * their settings so each turn does not recompile them.
 *
 * Rules run on RE2 (`re2js`), whose matching time is linear in the text for every pattern, so no
 * rule can stall a turn however it is written (`(a+){2,40}b`, `\s*\s*$`). The price is RE2's
 * syntax: backreferences and lookaround cannot be expressed, and such a rule is a config error that
 * says so.
 */
import { createRequire } from 'node:module'
import type { RE2JS } from 're2js'

export type RegexScope = 'input' | 'history' | 'output-display'

export interface RegexRule {
  pattern: string
  flags?: string
  replacement?: string
  scope?: RegexScope | RegexScope[]
  enabled?: boolean
}

export interface CompiledRegexRule {
  regex: RE2JS
  replacement: string
  scopes: ReadonlySet<RegexScope>
}

export interface RegexRuleIssue {
  /** Relative to the processor entry, e.g. `rules.0.pattern`. */
  path: string
  message: string
}

const scopes: readonly RegexScope[] = ['input', 'history', 'output-display']
const defaultScopes: RegexScope[] = ['input', 'history']

// RE2 is loaded with the first rule to check or compile: most characters have no regex rules, and
// loading it costs as much as a tenth of `import('charpipe')`.
const require = createRequire(import.meta.url)
let loadedRe2: typeof RE2JS | undefined
const loadRe2 = (): typeof RE2JS => {
  loadedRe2 ??= (require('re2js') as typeof import('re2js')).RE2JS
  return loadedRe2
}

/** JavaScript flags and their RE2 meaning; `g` is implied (a rule replaces every match), `u` too. */
const flagNames: Record<string, 'CASE_INSENSITIVE' | 'MULTILINE' | 'DOTALL' | undefined> = {
  g: undefined,
  u: undefined,
  i: 'CASE_INSENSITIVE',
  m: 'MULTILINE',
  s: 'DOTALL',
}

function readScopes(value: unknown): RegexScope[] | undefined {
  const list = value === undefined ? defaultScopes : Array.isArray(value) ? value : [value]
  return list.every((scope) => scopes.includes(scope as RegexScope)) ? (list as RegexScope[]) : undefined
}

/** Why a pattern cannot run on RE2, in words a rule author can act on; undefined when it can. */
function explainUnsupported(pattern: string): string | undefined {
  if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences (\\1, \\k<name>) are not supported'
  if (/\(\?<?[=!]/.test(pattern))
    return 'lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported'
  return undefined
}

/** RE2 flag bits for JavaScript flags, or why one is not supported. */
export function readFlags(flags: string): number | string {
  let bits = 0
  for (const flag of flags) {
    if (!Object.hasOwn(flagNames, flag)) return `flag "${flag}" is not supported (use g, i, m, s, u)`
    const name = flagNames[flag]
    if (name) bits |= loadRe2()[name]
  }
  return bits
}

/** Compiles a pattern for RE2, or says why it cannot be. */
export function compilePattern(pattern: string, flags: number): RE2JS | string {
  const unsupported = explainUnsupported(pattern)
  if (unsupported) return `${unsupported}: rules run on a linear-time engine (RE2 syntax)`
  try {
    const re2 = loadRe2()
    return re2.compile(re2.translateRegExp(pattern), flags)
  } catch (error) {
    return `invalid regular expression (RE2 syntax): ${(error as Error).message}`
  }
}

/** Problems of the `rules` setting, with paths; empty when every rule compiles. */
export function checkRegexRules(rules: unknown): RegexRuleIssue[] {
  if (rules === undefined) return []
  if (!Array.isArray(rules))
    return [{ path: 'rules', message: 'must be a list of {pattern, replacement, …}' }]
  const issues: RegexRuleIssue[] = []
  rules.forEach((rule: unknown, index) => {
    const path = `rules.${index}`
    if (typeof rule !== 'object' || rule === null) {
      issues.push({ path, message: 'must be an object {pattern, flags, replacement, scope, enabled}' })
      return
    }
    const { pattern, flags, replacement, scope } = rule as Record<string, unknown>
    const flagValue = typeof flags === 'string' ? readFlags(flags) : 0
    if (flags !== undefined && typeof flags !== 'string')
      issues.push({ path: `${path}.flags`, message: 'must be a string such as "gi"' })
    else if (typeof flagValue === 'string') issues.push({ path: `${path}.flags`, message: flagValue })
    if (typeof pattern !== 'string' || pattern === '') {
      issues.push({ path: `${path}.pattern`, message: 'must be a non-empty string' })
    } else {
      const compiled = compilePattern(pattern, typeof flagValue === 'number' ? flagValue : 0)
      if (typeof compiled === 'string') issues.push({ path: `${path}.pattern`, message: compiled })
    }
    if (replacement !== undefined && typeof replacement !== 'string')
      issues.push({ path: `${path}.replacement`, message: 'must be a string' })
    if (!readScopes(scope))
      issues.push({ path: `${path}.scope`, message: `must be one or a list of ${scopes.join(', ')}` })
  })
  return issues
}

const compiledCache = new WeakMap<object, CompiledRegexRule[]>()

/**
 * The enabled, valid rules of a `rules` setting, compiled. Invalid rules are left out (the config
 * check reports them).
 */
export function compileRegexRules(rules: unknown): CompiledRegexRule[] {
  if (!Array.isArray(rules)) return []
  const cached = compiledCache.get(rules)
  if (cached) return cached
  const compiled: CompiledRegexRule[] = []
  for (const rule of rules as unknown[]) {
    if (typeof rule !== 'object' || rule === null) continue
    if (checkRegexRules([rule]).length > 0) continue
    const { pattern, flags, replacement, scope, enabled } = rule as RegexRule
    if (enabled === false) continue
    const regex = compilePattern(pattern, readFlags(flags ?? '') as number)
    if (typeof regex === 'string') continue
    compiled.push({ regex, replacement: replacement ?? '', scopes: new Set(readScopes(scope)) })
  }
  compiledCache.set(rules, compiled)
  return compiled
}
