/**
 * Regex rules of the regex processor: `{pattern, flags, replacement, scope, enabled}`. Scope says
 * where a rule applies: `input` (the current user message), `history` (stored messages) and
 * `output-display` (the reply's display text, applied by the engine). Compiled rules are cached by
 * their settings so each turn does not recompile them.
 */
import { findRegexRisk } from './find-regex-risk.js'

export type RegexScope = 'input' | 'history' | 'output-display'

export interface RegexRule {
  pattern: string
  flags?: string
  replacement?: string
  scope?: RegexScope | RegexScope[]
  enabled?: boolean
}

export interface CompiledRegexRule {
  regex: RegExp
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

/** Problems of the `rules` setting, with paths; empty when every rule can be compiled safely. */
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
    if (typeof pattern !== 'string' || pattern === '') {
      issues.push({ path: `${path}.pattern`, message: 'must be a non-empty string' })
    } else {
      try {
        new RegExp(pattern, typeof flags === 'string' ? flags : 'g')
        const risk = findRegexRisk(pattern)
        if (risk) issues.push({ path: `${path}.pattern`, message: `rejected, may run forever: ${risk}` })
      } catch (error) {
        const where = error instanceof SyntaxError && /flag/i.test(error.message) ? 'flags' : 'pattern'
        issues.push({
          path: `${path}.${where}`,
          message: `invalid regular expression: ${(error as Error).message}`,
        })
      }
    }
    if (flags !== undefined && typeof flags !== 'string')
      issues.push({ path: `${path}.flags`, message: 'must be a string such as "gi"' })
    if (replacement !== undefined && typeof replacement !== 'string')
      issues.push({ path: `${path}.replacement`, message: 'must be a string' })
    if (!readScopes(scope))
      issues.push({ path: `${path}.scope`, message: `must be one or a list of ${scopes.join(', ')}` })
  })
  return issues
}

const compiledCache = new WeakMap<object, CompiledRegexRule[]>()

/**
 * The enabled, valid rules of a `rules` setting, compiled. Invalid or risky rules are left out (the
 * config check reports them); `g` is always added so a rule replaces every match.
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
    const allFlags = (flags ?? '').includes('g') ? (flags ?? '') : `${flags ?? ''}g`
    compiled.push({
      regex: new RegExp(pattern, allFlags),
      replacement: replacement ?? '',
      scopes: new Set(readScopes(scope)),
    })
  }
  compiledCache.set(rules, compiled)
  return compiled
}
