/**
 * The provider the engine uses for a config: `llm` and its `fallbacks` resolved through the
 * registry (the `openclaw` section for provider `openclaw`, the character's reply shape for the
 * builtin `mock`), each built by `createChatProvider`, all behind the one retry/fallback loop.
 */

import type { CharpipeConfig } from '../config/schema.js'
import { type Logger, registerSecrets } from '../shared/logger.js'
import { buildChatProviderSettings } from './build-chat-provider-settings.js'
import { createChatProvider } from './create-chat-provider.js'
import { createResilientProvider, type ResilientProvider } from './create-resilient-provider.js'

export interface CreateProviderFromConfigOptions {
  logger?: Logger
  /** Replaces the global `fetch` for every provider (tests, proxies). */
  fetch?: typeof fetch
}

/** Builds the engine's provider: primary plus fallbacks, with retries before the first chunk. */
export function createProviderFromConfig(
  config: CharpipeConfig,
  options: CreateProviderFromConfigOptions = {},
): ResilientProvider {
  const primary = buildChatProviderSettings(config.llm, 'llm', config, options)
  const fallbacks = config.llm.fallbacks.map((entry, index) =>
    buildChatProviderSettings(entry, `llm.fallbacks.${index}`, config, options),
  )
  registerSecrets([primary.apiKey, ...fallbacks.map((settings) => settings.apiKey)])
  return createResilientProvider({
    primary: createChatProvider(primary),
    fallbacks: fallbacks.map((settings) => createChatProvider(settings)),
    maxRetries: config.llm.max_retries,
    firstChunkTimeoutsMs: [primary.timeoutMs, ...fallbacks.map((settings) => settings.timeoutMs)],
    logger: options.logger,
  })
}
