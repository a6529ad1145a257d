/**
 * The context pipeline: ordered processors that turn a turn's input, the history, memories and the
 * character into the messages sent to the model (SPEC R3).
 */
export { builtinProcessors } from './builtin-processors.js'
export { checkPipelineConfig, createPipelineConfigCheck } from './check-pipeline-config.js'
export { type CreateContextPipelineOptions, createContextPipeline } from './create-context-pipeline.js'
export { createModelCapabilities } from './create-model-capabilities.js'
export { formatForAnthropic } from './formatters/format-for-anthropic.js'
export { mergeConsecutiveRoles } from './formatters/merge-consecutive-roles.js'
export { expandMacros, type MacroValues } from './macros/expand-macros.js'
export { registerProcessor } from './processor-registry.js'
export { formatUserEmotion } from './processors/user-emotion.js'
export { applyDisplayRegexRules } from './regex/apply-display-regex-rules.js'
export { resolveProcessorSettings } from './resolve-processor-settings.js'
export { createTokenCounter } from './tokens/create-token-counter.js'
export type * from './types.js'
