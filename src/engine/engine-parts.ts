/**
 * The stages the engine composes, as one object so tests (and integrators) can swap any of them. The
 * defaults come from the other folders' entry points (`defaultEngineParts`); the engine itself only
 * sequences them, holds per-session order and turns failures into events.
 */
import type { CharpipeConfig } from '../config/schema.js'
import type {
  AudioTranscriber,
  ContextPipeline,
  ImageDescriber,
  ModelCapabilities,
  TokenCounter,
} from '../context/types.js'
import type { FactExtractor } from '../memory/index.js'
import type { HistoryStore, MemoryStore, StoredMessage } from '../memory/types.js'
import type { ChatProvider } from '../providers/types.js'
import type { ReplyParser, ReplyParserOptions } from '../reply/types.js'
import type { SliceQueue } from '../shared/create-slice-queue.js'
import type { Language } from '../shared/language/index.js'
import type { Logger } from '../shared/logger.js'

export interface HistoryResetPolicy {
  shouldReset(state: { turns: number; messages: StoredMessage[] }): boolean
}

export interface RememberTurnInput {
  scope: string
  user: string
  assistant: string
  turn: string
  /** The turn this one replaced (a regenerated reply): its memories are forgotten. */
  replaces?: string
  time: number
  /** Kept with every memory of the turn: who spoke and where (see `selectTurnMemoryTarget`). */
  metadata?: Record<string, unknown>
  speakerNames: { user: string; assistant: string }
  /** With `memory.extract: true`: facts are extracted instead of the raw turn being stored. */
  extractor?: FactExtractor
  /** The character's language, handed to the extractor. */
  language?: Language
  logger?: Logger
}

export interface EngineParts {
  createProvider(config: CharpipeConfig, options: { logger: Logger }): ChatProvider
  createContextPipeline(): ContextPipeline
  createModelCapabilities(config: CharpipeConfig): ModelCapabilities
  createTokenCounter(capabilities: ModelCapabilities): TokenCounter
  createReplyParser(options: ReplyParserOptions): ReplyParser
  replyParserOptionsFromConfig(
    config: CharpipeConfig,
    log?: (level: 'debug' | 'warn', message: string) => void,
  ): ReplyParserOptions
  /** The regex rules with scope `output-display`, applied to a reply's display text. */
  applyDisplayRegexRules(text: string, config: CharpipeConfig): string
  createHistoryStore(config: CharpipeConfig, options: { logger: Logger }): Promise<HistoryStore>
  createHistoryResetPolicy(
    reset: CharpipeConfig['history']['reset'],
    countTokens?: (text: string) => number,
  ): HistoryResetPolicy
  createMemoryStore(
    config: CharpipeConfig,
    options: { logger: Logger; slices?: SliceQueue },
  ): Promise<MemoryStore | undefined>
  rememberTurn(store: MemoryStore, input: RememberTurnInput): Promise<void>
  /** Describes images for a chat model without vision (`llm.vision_describer`); none: a placeholder. */
  createImageDescriber?(config: CharpipeConfig, options: { logger: Logger }): ImageDescriber | undefined
  /** Transcribes audio attachments (`llm.transcriber`); none: a placeholder. */
  createAudioTranscriber?(config: CharpipeConfig, options: { logger: Logger }): AudioTranscriber | undefined
}
