/**
 * regex-processor (200): user regex rules over the input and the history, in place (seed 003
 * §3.1), with macros in replacements. Rules scoped `output-display` are for the reply's display text
 * and run in the engine through `applyDisplayRegexRules`.
 */
import type { ChatMessage } from '../../shared/messages.js'
import { createMacroValues } from '../macros/create-macro-values.js'
import { expandMacros } from '../macros/expand-macros.js'
import { applyRegexRules, defaultMaxRegexInputChars } from '../regex/apply-regex-rules.js'
import { checkRegexRules, compileRegexRules, type RegexScope } from '../regex/compile-regex-rules.js'
import { escapeReplacementValues } from '../regex/escape-replacement-values.js'
import type { ContextProcessor } from '../types.js'
import { checkType, readNumber } from './read-settings.js'

function scopeOf(message: ChatMessage): RegexScope | undefined {
  if (message.source === 'input') return 'input'
  if (message.source === 'history') return 'history'
  return undefined
}

function rewriteMessage(message: ChatMessage, rewrite: (text: string) => string): void {
  // Content is replaced, not mutated, so the token counter's per-message cache sees the change.
  if (typeof message.content === 'string') {
    message.content = rewrite(message.content)
  } else {
    message.content = message.content.map((part) =>
      part.type === 'text' ? { ...part, text: rewrite(part.text) } : part,
    )
  }
}

export const regexProcessor: ContextProcessor = {
  id: 'regex-processor',
  name: '正则处理器',
  description:
    'Regex replacements (RE2 syntax, linear time) on the input, the history or the reply display text.',
  priority: 200,
  defaultEnabled: true,
  configFields: [
    {
      key: 'rules',
      label: 'Rules',
      type: 'json',
      default: [],
      description:
        'List of {pattern, flags, replacement, scope: input | history | output-display (or a list), enabled}.',
      placeholder: '[{"pattern": "\\\\(.*?\\\\)", "replacement": "", "scope": "history"}]',
    },
    {
      key: 'max_input_chars',
      label: 'Longest text',
      type: 'number',
      min: 1,
      max: 1_000_000,
      integer: true,
      default: defaultMaxRegexInputChars,
      description:
        'Texts longer than this are left alone, and the rules may add at most this many characters to a text.',
    },
  ],
  validateSettings(settings) {
    const typeIssue = checkType(settings, 'max_input_chars', 'number')
    return [...checkRegexRules(settings.rules), ...(typeIssue ? [typeIssue] : [])]
  },
  execute(context, settings) {
    const rules = compileRegexRules(settings.rules)
    if (rules.length === 0) return
    const maxInputChars = readNumber(settings, 'max_input_chars', defaultMaxRegexInputChars)
    const macroValues = escapeReplacementValues(createMacroValues(context))
    const expandReplacement = (replacement: string) => expandMacros(replacement, macroValues)
    let skipped = 0
    let stopped = 0
    for (const message of context.messages) {
      const scope = scopeOf(message)
      if (!scope) continue
      rewriteMessage(message, (text) => {
        const result = applyRegexRules({ text, rules, scope, maxInputChars, expandReplacement })
        if (result.skipped) skipped++
        stopped += result.stoppedRules
        return result.text
      })
    }
    if (skipped > 0) {
      context.logs.push({
        processorId: 'regex-processor',
        level: 'warn',
        message: `${skipped} text(s) longer than ${maxInputChars} characters were left alone`,
      })
    }
    if (stopped > 0) {
      const message = `${stopped} rule application(s) would have added more than ${maxInputChars} characters to a text and were not applied`
      context.logs.push({ processorId: 'regex-processor', level: 'warn', message })
      context.services.logger.warn({ processor: 'regex-processor' }, message)
    }
  },
}
