/**
 * The image describer `llm.vision_describer` configures, or `undefined` when it is `null` (the
 * pipeline then says plainly that the model cannot see the image). The describer's provider goes
 * through the registry like `llm` does, with one retry of ours before its first chunk.
 */
import { lookupProvider } from '../config/provider-registry.js'
import type { CharpipeConfig } from '../config/schema.js'
import { InvalidConfigError } from '../shared/errors.js'
import type { ImageDescriber } from '../shared/image-describer.js'
import { registerSecrets } from '../shared/logger.js'
import {
  type BuildChatProviderSettingsOptions,
  buildChatProviderSettings,
} from './build-chat-provider-settings.js'
import { createChatProvider } from './create-chat-provider.js'
import { createImageDescriber } from './create-image-describer.js'
import { createResilientProvider } from './create-resilient-provider.js'

export interface CreateImageDescriberFromConfigOptions extends BuildChatProviderSettingsOptions {}

export function createImageDescriberFromConfig(
  config: CharpipeConfig,
  options: CreateImageDescriberFromConfigOptions = {},
): ImageDescriber | undefined {
  const describer = config.llm.vision_describer
  if (!describer) return undefined
  const path = 'llm.vision_describer'
  const settings = buildChatProviderSettings(describer, path, config, options)
  if (settings.apiType === 'openclaw' || settings.apiType === 'mock') {
    throw new InvalidConfigError([
      {
        path: `${path}.provider`,
        message: `provider "${describer.provider}" cannot describe images; name one with a vision model (e.g. openai, anthropic, doubao) or a base_url`,
      },
    ])
  }
  registerSecrets([settings.apiKey])
  const provider = createChatProvider({ ...settings, timeoutMs: describer.timeout_ms })
  return createImageDescriber({
    provider: createResilientProvider({
      primary: provider,
      maxRetries: Math.min(1, config.llm.max_retries),
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    prompt: describer.prompt,
    timeoutMs: describer.timeout_ms,
    needsImageBytes: lookupProvider(describer.provider).acceptsImageUrls === false,
  })
}
