/**
 * The builtin stages, from the other folders' entry points. Loaded lazily by `createCharpipe` so a
 * caller that replaces every stage does not load SQLite or the provider SDKs.
 */
import {
  applyDisplayRegexRules,
  createContextPipeline,
  createModelCapabilities,
  createTokenCounter,
} from '../context/index.js'
import {
  createHistoryResetPolicy,
  createHistoryStore,
  createMemoryStore,
  rememberTurn,
} from '../memory/index.js'
import {
  createAudioTranscriber,
  createImageDescriberFromConfig,
  createProviderFromConfig,
} from '../providers/index.js'
import { createReplyParser, replyParserOptionsFromConfig } from '../reply/index.js'
import type { EngineParts } from './engine-parts.js'

export const defaultEngineParts: EngineParts = {
  createProvider: (config, options) => createProviderFromConfig(config, options),
  createContextPipeline: () => createContextPipeline(),
  createModelCapabilities,
  createTokenCounter,
  createReplyParser,
  replyParserOptionsFromConfig,
  applyDisplayRegexRules,
  createHistoryStore: (config, options) => createHistoryStore(config, { logger: options.logger }),
  createHistoryResetPolicy,
  createMemoryStore: (config, options) =>
    createMemoryStore(config, {
      logger: options.logger,
      ...(options.slices ? { slices: options.slices } : {}),
    }),
  rememberTurn: async (store, input) => {
    await rememberTurn(store, input)
  },
  createImageDescriber: (config, options) =>
    createImageDescriberFromConfig(config, { logger: options.logger }),
  createAudioTranscriber: (config, options) => createAudioTranscriber(config, { logger: options.logger }),
}
