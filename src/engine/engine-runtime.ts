/**
 * Everything a turn runs on, built from one config: provider, capabilities, token counter, parser
 * options and stores. A turn captures the runtime current when it starts and keeps it to the end, so
 * `reload` never changes a running turn. Parts whose config sections did not change are carried over
 * (same provider, same open stores), so a persona edit does not reconnect anything.
 */
import { prepareBlockedWordLists } from '../audience/prepare-blocked-word-lists.js'
import type { CharpipeConfig } from '../config/schema.js'
import type {
  AudioTranscriber,
  ImageDescriber,
  ModelCapabilities,
  PipelineServices,
  TokenCounter,
} from '../context/types.js'
import type { HistoryStore, MemoryStore } from '../memory/types.js'
import type { ChatProvider } from '../providers/types.js'
import type { ReplyParserOptions } from '../reply/types.js'
import type { SliceQueue } from '../shared/create-slice-queue.js'
import { createChildLogger, type Logger } from '../shared/logger.js'
import type { EngineParts, HistoryResetPolicy } from './engine-parts.js'

/** A provider given by the caller: one instance, or a factory called on every provider change. */
export type ProviderOption = ChatProvider | ((config: CharpipeConfig) => ChatProvider)

export interface EngineRuntime {
  readonly config: CharpipeConfig
  readonly provider: ChatProvider
  /** Describes images for a model without vision; undefined: the pipeline's placeholder. */
  readonly imageDescriber: ImageDescriber | undefined
  /** Transcribes audio attachments (`llm.transcriber`); undefined: the pipeline's placeholder. */
  readonly audioTranscriber: AudioTranscriber | undefined
  readonly capabilities: ModelCapabilities
  readonly tokenCounter: TokenCounter
  readonly parserOptions: ReplyParserOptions
  readonly historyStore: HistoryStore
  readonly memoryStore: MemoryStore | undefined
  readonly resetPolicy: HistoryResetPolicy
  /** Turns running on this runtime; a retired runtime releases its own parts at zero. */
  activeTurns: number
  /**
   * Builds the provider for another config (a character's view, when the provider depends on the
   * character, as the builtin mock does); undefined when the caller gave one provider instance.
   */
  readonly rebuildProvider?: (config: CharpipeConfig) => ChatProvider
  /** For one character's view of a runtime (see `selectCharacterRuntime`): the runtime it shares parts with. */
  readonly base?: EngineRuntime
}

export interface CreateEngineRuntimeOptions {
  config: CharpipeConfig
  parts: EngineParts
  logger: Logger
  previous?: EngineRuntime
  provider?: ProviderOption
  historyStore?: HistoryStore
  memoryStore?: MemoryStore
  /** The engine's queue of background slices, for the memory store's writes. */
  slices?: SliceQueue
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right)
}

function usesMockProvider(config: CharpipeConfig): boolean {
  return config.llm.provider === 'mock' || config.llm.fallbacks.some((entry) => entry.provider === 'mock')
}

/** What the builtin mock composes its replies from. */
function mockShape(config: CharpipeConfig): unknown {
  if (!usesMockProvider(config)) return undefined
  const { name, reply_format, emotions } = config.character
  return { name, reply_format, emotions }
}

/**
 * The provider depends on `llm` (except the processors map) and `openclaw`; the builtin mock also
 * on the character's name, reply format and emotions, so a reload shows in its next reply.
 */
export function isSameProviderConfig(left: CharpipeConfig, right: CharpipeConfig): boolean {
  const { processors: _left, ...leftLlm } = left.llm
  const { processors: _right, ...rightLlm } = right.llm
  return (
    sameJson(leftLlm, rightLlm) &&
    sameJson(left.openclaw, right.openclaw) &&
    sameJson(mockShape(left), mockShape(right))
  )
}

function isSameHistoryStoreConfig(left: CharpipeConfig, right: CharpipeConfig): boolean {
  return left.history.store === right.history.store && sameJson(left.storage, right.storage)
}

function isSameMemoryStoreConfig(left: CharpipeConfig, right: CharpipeConfig): boolean {
  return sameJson(left.memory, right.memory) && sameJson(left.storage, right.storage)
}

function buildProvider(options: CreateEngineRuntimeOptions): ChatProvider {
  const { config, previous, provider } = options
  if (previous && isSameProviderConfig(previous.config, config)) return previous.provider
  if (typeof provider === 'function') return provider(config)
  if (provider) return provider
  return options.parts.createProvider(config, { logger: createChildLogger(options.logger, 'providers') })
}

/** The describer depends on `llm` too, so it is rebuilt exactly when the provider is. */
function buildImageDescriber(options: CreateEngineRuntimeOptions): ImageDescriber | undefined {
  const { config, previous } = options
  if (previous && isSameProviderConfig(previous.config, config)) return previous.imageDescriber
  return options.parts.createImageDescriber?.(config, {
    logger: createChildLogger(options.logger, 'providers'),
  })
}

/** The transcriber depends on `llm` too, so it is rebuilt exactly when the provider is. */
function buildAudioTranscriber(options: CreateEngineRuntimeOptions): AudioTranscriber | undefined {
  const { config, previous } = options
  if (previous && isSameProviderConfig(previous.config, config)) return previous.audioTranscriber
  return options.parts.createAudioTranscriber?.(config, {
    logger: createChildLogger(options.logger, 'providers'),
  })
}

/**
 * What the context pipeline reads through, for a turn or a preview on this runtime; `clock` (the
 * engine's) times the recall budget.
 */
export function createPipelineServices(
  runtime: EngineRuntime,
  logger: Logger,
  clock?: PipelineServices['clock'],
): PipelineServices {
  return {
    ...(clock ? { clock } : {}),
    history: runtime.historyStore,
    memory: runtime.memoryStore,
    tokenCounter: runtime.tokenCounter,
    imageDescriber: runtime.imageDescriber,
    audioTranscriber: runtime.audioTranscriber,
    logger: createChildLogger(logger, 'context'),
  }
}

export async function createEngineRuntime(options: CreateEngineRuntimeOptions): Promise<EngineRuntime> {
  const { config, parts, previous, logger } = options
  const capabilities = parts.createModelCapabilities(config)
  const tokenCounter = parts.createTokenCounter(capabilities)
  const parserLogger = createChildLogger(logger, 'reply')
  const parserOptions = parts.replyParserOptionsFromConfig(config, (level, message) =>
    level === 'warn' ? parserLogger.warn(message) : parserLogger.debug(message),
  )
  const storeOptions = { logger }
  const historyStore =
    options.historyStore ??
    (previous && isSameHistoryStoreConfig(previous.config, config)
      ? previous.historyStore
      : await parts.createHistoryStore(config, storeOptions))
  let memoryStore = options.memoryStore
  if (!memoryStore && config.memory.enabled) {
    memoryStore =
      previous?.memoryStore && isSameMemoryStoreConfig(previous.config, config)
        ? previous.memoryStore
        : await parts.createMemoryStore(config, {
            ...storeOptions,
            ...(options.slices ? { slices: options.slices } : {}),
          })
  }
  const { provider, slices } = options
  if (slices) await prepareBlockedWordLists(config, (work) => slices.run(work))
  const providerLogger = createChildLogger(logger, 'providers')
  return {
    config,
    provider: buildProvider(options),
    rebuildProvider:
      typeof provider === 'function'
        ? provider
        : provider
          ? undefined
          : (other) => parts.createProvider(other, { logger: providerLogger }),
    imageDescriber: buildImageDescriber(options),
    audioTranscriber: buildAudioTranscriber(options),
    capabilities,
    tokenCounter,
    parserOptions,
    historyStore,
    memoryStore,
    resetPolicy: parts.createHistoryResetPolicy(config.history.reset, (text) => tokenCounter.countText(text)),
    activeTurns: 0,
  }
}

/** Closes what `retired` holds that `current` (and the caller) does not; errors are logged. */
export async function releaseRuntimeParts(
  retired: EngineRuntime,
  current: EngineRuntime | undefined,
  owned: { historyStore?: HistoryStore; memoryStore?: MemoryStore },
  logger: Logger,
): Promise<void> {
  const closing: Promise<unknown>[] = []
  if (retired.historyStore !== current?.historyStore && retired.historyStore !== owned.historyStore) {
    closing.push(retired.historyStore.close())
  }
  const memory = retired.memoryStore
  if (memory && memory !== current?.memoryStore && memory !== owned.memoryStore) closing.push(memory.close())
  const provider = retired.provider as ChatProvider & { close?: () => unknown }
  if (provider !== current?.provider && typeof provider.close === 'function') {
    closing.push(Promise.resolve(provider.close()))
  }
  for (const result of await Promise.allSettled(closing)) {
    if (result.status === 'rejected') logger.error({ err: result.reason }, 'closing a store failed')
  }
}
