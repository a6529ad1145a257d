/**
 * The provider the engine uses for a config: `llm` and its `fallbacks` resolved through the
 * registry (the `openclaw` section for provider `openclaw`, the character's reply shape for the
 * builtin `mock`), each built by `createChatProvider`, all behind the one retry/fallback loop.
 */

import { resolveProviderSettings } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import { type Logger, registerSecrets } from '../shared/logger.js'
import type { ChatProviderSettings } from './chat-provider-settings.js'
import { createChatProvider } from './create-chat-provider.js'
import { createResilientProvider } from './create-resilient-provider.js'
import type { ChatProvider } from './types.js'

export interface CreateProviderFromConfigOptions {
  logger?: Logger
  /** Replaces the global `fetch` for every provider (tests, proxies). */
  fetch?: typeof fetch
}

interface ProviderEntry {
  provider: string
  model?: string
  base_url?: string
  api_key?: string
}

function settingsFor(
  entry: ProviderEntry,
  path: string,
  config: CharpipeConfig,
  options: CreateProviderFromConfigOptions,
): ChatProviderSettings {
  const resolved = resolveProviderSettings({ ...entry, context_window: config.llm.context_window })
  const common = {
    temperature: config.llm.temperature,
    maxTokens: config.llm.max_tokens,
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

/** Builds the engine's provider: primary plus fallbacks, with retries before the first chunk. */
export function createProviderFromConfig(
  config: CharpipeConfig,
  options: CreateProviderFromConfigOptions = {},
): ChatProvider {
  const primary = settingsFor(config.llm, 'llm', config, options)
  const fallbacks = config.llm.fallbacks.map((entry, index) =>
    settingsFor(entry, `llm.fallbacks.${index}`, config, options),
  )
  registerSecrets([primary.apiKey, ...fallbacks.map((settings) => settings.apiKey)])
  return createResilientProvider({
    primary: createChatProvider(primary),
    fallbacks: fallbacks.map((settings) => createChatProvider(settings)),
    maxRetries: config.llm.max_retries,
    logger: options.logger,
  })
}
