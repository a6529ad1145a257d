/**
 * Resolved settings for one provider entry of the config (`llm`, a fallback, the vision describer):
 * the registry fills the URL and model, the `openclaw` section applies to provider `openclaw`, the
 * character's reply shape to the builtin `mock`, and an unknown name without a base URL is refused
 * naming the field.
 */
import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import type { Logger } from '../shared/logger.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'

export interface BuildChatProviderSettingsOptions {
  logger?: Logger
  fetch?: typeof fetch
}

export interface ProviderEntry {
  provider: string
  model?: string
  base_url?: string
  api_key?: string
}

export function buildChatProviderSettings(
  entry: ProviderEntry,
  path: string,
  config: CharpipeConfig,
  options: BuildChatProviderSettingsOptions,
): ChatProviderSettings {
  const resolved = resolveProviderSettings({ ...entry, context_window: config.llm.context_window })
  const common = {
    temperature: config.llm.temperature,
    maxTokens: config.llm.max_tokens,
    promptCache: config.llm.prompt_cache,
    timeoutMs: config.llm.timeout_ms,
    stallTimeoutMs: config.llm.stall_timeout_ms,
    logger: options.logger,
    fetch: options.fetch,
  }
  if (resolved.apiType === 'openclaw') {
    const openclaw = config.openclaw
    // The `openclaw` section is the gateway's own; `llm.base_url` only wins when set explicitly.
    return {
      ...resolved,
      ...common,
      baseUrl: entry.base_url || openclaw.url,
      apiKey: openclaw.token || resolved.apiKey,
      timeoutMs: openclaw.timeout_ms,
      openclaw: { sessionKey: openclaw.session_key, agentId: openclaw.agent_id },
    }
  }
  if (resolved.apiType === 'mock') {
    const character = config.character
    return {
      ...resolved,
      ...common,
      mock: {
        replyFormat: character.reply_format,
        emotions: character.emotions,
        characterName: character.name,
      },
    }
  }
  if (!resolved.baseUrl) {
    throw new InvalidConfigError([
      {
        path: `${path}.base_url`,
        message: `provider "${entry.provider}" is not in the registry, so it is treated as OpenAI-compatible and needs a base_url`,
      },
    ])
  }
  return { ...resolved, ...common }
}
