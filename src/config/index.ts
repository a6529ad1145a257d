export { findConfigErrors, findConfigWarnings } from './check-config.js'
export { substituteEnvVariables } from './env-substitution.js'
export { findClosestName, measureEditDistance, suggestClosestName } from './find-closest-name.js'
export { findNearFile } from './find-near-file.js'
export { findSchemaField, isMapField } from './find-schema-field.js'
export {
  type ConfigCheck,
  defaultConfig,
  type LoadConfigOptions,
  type LoadConfigResult,
  loadConfig,
  type ParseConfigFileOptions,
  type ParseConfigOptions,
  type ParseConfigResult,
  parseConfig,
  parseConfigFile,
  parseConfigText,
} from './load-config.js'
export { collectSecrets, maskSecrets, restoreMaskedSecrets } from './mask-secrets.js'
export {
  type ApiType,
  builtinProviders,
  lookupProvider,
  type ProviderInfo,
  type ResolvedProviderSettings,
  resolveProviderSettings,
} from './provider-registry.js'
export {
  type CharacterConfig,
  type CharpipeConfig,
  type CharpipeConfigInput,
  configSchema,
  type FallbackProviderConfig,
  type ProcessorSettings,
  type ReplyFormat,
  type SentenceConfig,
  type SpeechFilter,
  secretFieldPaths,
} from './schema.js'
