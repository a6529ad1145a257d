/**
 * Runs compiled rules over one text, skipping texts longer than the cap (which bounds the
 * polynomial backtracking that the static check lets through).
 */
import type { CompiledRegexRule, RegexScope } from './compile-regex-rules.js'

/** Longest text a rule runs on by default. */
export const defaultMaxRegexInputChars = 20_000

export interface ApplyRegexRulesOptions {
  text: string
  rules: readonly CompiledRegexRule[]
  scope: RegexScope
  maxInputChars: number
  /** Turns macros in a replacement into text. */
  expandReplacement?: (replacement: string) => string
}

export interface ApplyRegexRulesResult {
  text: string
  /** The text was longer than the cap, so no rule ran. */
  skipped: boolean
}

export function applyRegexRules(options: ApplyRegexRulesOptions): ApplyRegexRulesResult {
  const rules = options.rules.filter((rule) => rule.scopes.has(options.scope))
  if (rules.length === 0) return { text: options.text, skipped: false }
  if (options.text.length > options.maxInputChars) return { text: options.text, skipped: true }
  let text = options.text
  for (const rule of rules) {
    rule.regex.lastIndex = 0
    const replacement = options.expandReplacement
      ? options.expandReplacement(rule.replacement)
      : rule.replacement
    text = text.replace(rule.regex, replacement)
  }
  return { text, skipped: false }
}
