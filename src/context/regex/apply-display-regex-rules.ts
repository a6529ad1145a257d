/**
 * The `output-display` rules of the regex processor, for the engine to apply to the reply's display
 * text. Uses the same merged settings as the pipeline (R3.4); nothing happens when the processor is
 * disabled or has no such rules.
 */
import type { CharpipeConfig } from '../../config/schema.js'
import { resolveUserName } from '../../shared/language/index.js'
import { expandMacros } from '../macros/expand-macros.js'
import { readNumber } from '../processors/read-settings.js'
import { resolveProcessorSettings } from '../resolve-processor-settings.js'
import { applyRegexRules, defaultMaxRegexInputChars } from './apply-regex-rules.js'
import { compileRegexRules } from './compile-regex-rules.js'
import { escapeReplacementValues } from './escape-replacement-values.js'

/** `text` with the configured `output-display` regex rules applied. */
export function applyDisplayRegexRules(text: string, config: CharpipeConfig): string {
  const { settings } = resolveProcessorSettings(config, 'regex-processor')
  if (settings.enabled === false) return text
  const rules = compileRegexRules(settings.rules)
  if (rules.length === 0) return text
  const values = escapeReplacementValues({
    char: config.character.name,
    user: resolveUserName(config.character),
    timestamp: Date.now(),
    lastUserMessage: '',
  })
  return applyRegexRules({
    text,
    rules,
    scope: 'output-display',
    maxInputChars: readNumber(settings, 'max_input_chars', defaultMaxRegexInputChars),
    expandReplacement: (replacement) => expandMacros(replacement, values),
  }).text
}
