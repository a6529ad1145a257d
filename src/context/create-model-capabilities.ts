/**
 * What the configured model can do, from `llm` and the provider registry. The pipeline's formatters,
 * the limiter and the attachment processors decide by these, never by provider name.
 */
import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import type { ModelCapabilities } from './types.js'

// Models whose chat template has no system role: their system text must be sent as user text.
const modelsWithoutSystemRole = [/^o1-(mini|preview)/i, /(^|\/)gemma/i]

export function createModelCapabilities(config: CharpipeConfig): ModelCapabilities {
  const resolved = resolveProviderSettings(config.llm)
  return {
    provider: resolved.name,
    apiType: resolved.apiType,
    model: resolved.model,
    vision: config.llm.vision,
    functionCalling: config.llm.function_calling,
    systemRole: !modelsWithoutSystemRole.some((pattern) => pattern.test(resolved.model)),
    contextWindow: resolved.contextWindow,
    maxTokens: config.llm.max_tokens,
  }
}
