/**
 * charpipe: the brain stage of an AI character. The bare import is what a library user needs: create
 * a character and run turns, load and check config, register processors, tools and providers, and
 * the event and error types. It stays light; everything else lives behind a named subpath:
 * `charpipe/server`, `charpipe/testing`, `charpipe/langchain`, `charpipe/memory` (stores and
 * long-term memory parts), `charpipe/memory/postgres`, `charpipe/memory/redis`, `charpipe/cluster`,
 * `charpipe/providers`, `charpipe/context`, `charpipe/reply` and `charpipe/tools` (the stages' own
 * building blocks). `test/public-api.test.ts` holds the list: a name added here is a decision.
 */

export {
  type ConfigCheck,
  defaultConfig,
  type LoadConfigOptions,
  type LoadConfigResult,
  loadConfig,
  type ParseConfigOptions,
  type ParseConfigResult,
  parseConfig,
  parseConfigText,
} from './characters/load-config.js'
// Config: load, parse and check.
export { findConfigErrors, findConfigWarnings } from './config/check-config.js'
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
} from './config/schema.js'
// Context processors.
export { builtinProcessors } from './context/builtin-processors.js'
export { registerProcessor } from './context/processor-registry.js'
export type * from './context/types.js'
// Create a character and run turns.
export {
  type CharpipeConfigSource,
  type CreateCharpipeOptions,
  createCharpipe,
} from './engine/create-charpipe.js'
export type {
  CharpipeWithDeprecatedMembers,
  DeprecatedCharpipeMembers,
} from './engine/deprecated-charpipe-members.js'
export type { ProviderOption } from './engine/engine-runtime.js'
export type * from './engine/types.js'
// History and long-term memory: the default stores (PostgreSQL and Redis: their own subpaths).
export { HistoryStoreError } from './memory/history/history-store-error.js'
export { createInMemoryHistoryStore } from './memory/history/in-memory-history-store.js'
export {
  createSqliteHistoryStore,
  type SqliteHistoryStoreOptions,
} from './memory/history/sqlite-history-store.js'
export { type CreateHistoryStoreOptions, createHistoryStore } from './memory/history-store-factory.js'
export { type CreateMemoryStoreOptions, createMemoryStore } from './memory/memory-store-factory.js'
export type { PeopleDirectory, PersonSummary } from './memory/people/index.js'
export type * from './memory/types.js'
// Providers.
export type {
  ChatProviderSettings,
  MockProviderSettings,
  OpenClawSettings,
} from './providers/chat-provider-settings.js'
export { createChatProvider } from './providers/create-chat-provider.js'
export {
  type CreateProviderFromConfigOptions,
  createProviderFromConfig,
} from './providers/create-provider-from-config.js'
export {
  type CreateResilientProviderOptions,
  createResilientProvider,
  type ResilientProvider,
} from './providers/create-resilient-provider.js'
export type {
  ChatProvider,
  ChatRequest,
  FinishReason,
  ProviderEvent,
  StreamChatOptions,
  ToolChoice,
  Usage,
} from './providers/types.js'
// Events, messages, errors and the logger.
export type { AudioTranscriber } from './shared/audio-transcriber.js'
export {
  AbortedError,
  BadRequestError,
  CharpipeError,
  type CharpipeErrorCode,
  ConfigFileNotFoundError,
  type ConfigIssue,
  InvalidConfigError,
  StoreUnavailableError,
  UpstreamHttpError,
  UpstreamStreamError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from './shared/errors.js'
export type * from './shared/events.js'
export type { ImageDescriber } from './shared/image-describer.js'
export { createLogger, type Logger, setLogger } from './shared/logger.js'
export type * from './shared/messages.js'
export { messageText } from './shared/messages.js'
// Tools.
export { createMcpTools, type McpTools } from './tools/mcp/create-mcp-tools.js'
export { createToolRegistry, type ToolRegistry } from './tools/tool-registry.js'
export {
  createToolResultContent,
  isToolResultContent,
  type ToolResultContent,
} from './tools/tool-result-content.js'
export type * from './tools/types.js'
