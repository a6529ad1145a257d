/**
 * Runs compiled rules over one text, within two bounds: texts longer than `maxInputChars` are left
 * alone, and the rules together may add at most `maxInputChars` characters to a text. The second
 * bound stops a replacement (or a macro in one, such as `{{lastUserMessage}}`) from multiplying the
 * input: a rule that would pass it is stopped at the match that crosses it and the text is kept as
 * it was before that rule.
 */
import type { CompiledRegexRule, RegexScope } from './compile-regex-rules.js'
import { fillReplacementTemplate, parseReplacementTemplate } from './substitute-replacement.js'

/** Longest text a rule runs on by default, and how much the rules may add to one text. */
export const defaultMaxRegexInputChars = 20_000

export interface ApplyRegexRulesOptions {
  text: string
  rules: readonly CompiledRegexRule[]
  scope: RegexScope
  maxInputChars: number
  /** Turns macros in a replacement into text (macro values must come back `$`-escaped). */
  expandReplacement?: (replacement: string) => string
}

export interface ApplyRegexRulesResult {
  text: string
  /** The text was longer than the cap, so no rule ran. */
  skipped: boolean
  /** Rules that were stopped because they would have grown the text past the bound. */
  stoppedRules: number
}

/** Thrown out of a replacer to end a replacement that grew too much; never leaves this file. */
const tooMuchGrowth = Symbol('too much growth')

function applyRule(
  text: string,
  rule: CompiledRegexRule,
  replacement: string,
  maxLength: number,
): string | undefined {
  const matcher = rule.regex.matcher(text)
  const template = parseReplacementTemplate(
    replacement,
    matcher.groupCount(),
    Object.keys(rule.regex.namedGroups()).length > 0,
  )
  let length = text.length
  try {
    return matcher.replaceAll((...args: unknown[]) => {
      const filled = fillReplacementTemplate(template, args)
      length += filled.length - (args[0] as string).length
      if (length > maxLength) throw tooMuchGrowth
      return filled
    })
  } catch (error) {
    if (error === tooMuchGrowth) return undefined
    throw error
  }
}

export function applyRegexRules(options: ApplyRegexRulesOptions): ApplyRegexRulesResult {
  const rules = options.rules.filter((rule) => rule.scopes.has(options.scope))
  if (rules.length === 0) return { text: options.text, skipped: false, stoppedRules: 0 }
  if (options.text.length > options.maxInputChars)
    return { text: options.text, skipped: true, stoppedRules: 0 }
  const maxLength = options.text.length + options.maxInputChars
  let text = options.text
  let stoppedRules = 0
  for (const rule of rules) {
    const replacement = options.expandReplacement
      ? options.expandReplacement(rule.replacement)
      : rule.replacement
    const next = applyRule(text, rule, replacement, maxLength)
    if (next === undefined) stoppedRules++
    else text = next
  }
  return { text, skipped: false, stoppedRules }
}
