/**
 * One provider from resolved settings, by `apiType`: OpenAI-compatible, Anthropic, OpenClaw or the
 * builtin mock. No retries here: `createResilientProvider` wraps it for that.
 */
import { BadRequestError } from '../shared/errors.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { createAnthropicProvider } from './create-anthropic-provider.js'
import { createMockProvider } from './create-mock-provider.js'
import { createOpenAICompatibleProvider } from './create-openai-compatible-provider.js'
import { createOpenClawProvider } from './create-openclaw-provider.js'
import type { ChatProvider } from './types.js'

export function createChatProvider(settings: ChatProviderSettings): ChatProvider {
  if (settings.apiType !== 'mock' && !settings.baseUrl) {
    throw new BadRequestError(`provider "${settings.name}" needs a base_url`)
  }
  switch (settings.apiType) {
    case 'openai':
      return createOpenAICompatibleProvider(settings)
    case 'anthropic':
      return createAnthropicProvider(settings)
    case 'openclaw':
      return createOpenClawProvider(settings)
    case 'mock':
      return createMockProvider(settings)
    default:
      throw new BadRequestError(
        `unknown api type "${String(settings.apiType)}" for provider "${settings.name}"`,
      )
  }
}
