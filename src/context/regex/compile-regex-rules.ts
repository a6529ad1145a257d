/**
 * Regex rules of the regex processor: `{pattern, flags, replacement, scope, enabled}`. Scope says
 * where a rule applies: `input` (the current user message), `history` (stored messages) and
 * `output-display` (the reply's display text, applied by the engine). Compiled rules are cached by
 * their settings so each turn does not recompile them.
 *
 * Rules run on RE2 (`re2js`), whose matching time is linear in the text for every pattern, so no
 * rule can stall a turn however it is written (`(a+){2,40}b`, `\s*\s*$`). The price is RE2's
 * syntax: backreferences and lookaround cannot be expressed, and such a rule is a config error that
 * says so. A rule's cost (the size of its program) is bounded like a lorebook key's: a larger one
 * is a config error too.
 */
import type { RE2JS } from 're2js'
import { compileBoundedPattern, readPatternFlags } from '../../config/patterns/compile-bounded-pattern.js'
import { characterLimits } from '../../config/schema/character-limits.js'

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

function readScopes(value: unknown): RegexScope[] | undefined {
  const list = value === undefined ? defaultScopes : Array.isArray(value) ? value : [value]
  return list.every((scope) => scopes.includes(scope as RegexScope)) ? (list as RegexScope[]) : undefined
}

/** RE2 flag bits for JavaScript flags, or why one is not supported. */
const readFlags = readPatternFlags

/**
 * Compiles a pattern for RE2 within the cost bound of `characterLimits.patternInstructions`, or
 * says why it cannot be (a rule's pattern is outside input like a card's).
 */
function compilePattern(pattern: string, flags: number): RE2JS | string {
  const compiled = compileBoundedPattern({
    pattern,
    flags,
    maxInstructions: characterLimits.patternInstructions,
  })
  return 'problem' in compiled ? compiled.problem : compiled.regex
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
