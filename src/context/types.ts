/**
 * The processor contract of the context pipeline (SPEC R3.1, seed 003). A processor is an id, a
 * priority and one `execute` function over a mutable context; the pipeline runs the enabled ones in
 * priority order. `configFields` describe a processor's options so the web page can build its form.
 */
import type { ApiType } from '../config/provider-registry.js'
import type { CharacterConfig, CharpipeConfig, ProcessorSettings } from '../config/schema.js'
import type { RecallTimers } from '../memory/long-term/recall-within-budget.js'
import type { HistoryStore, MemoryRetriever } from '../memory/types.js'
import type { AudioTranscriber } from '../shared/audio-transcriber.js'
import type { ImageDescriber } from '../shared/image-describer.js'
import type { Logger } from '../shared/logger.js'
import type { ChatMessage, ToolCall, ToolDefinition } from '../shared/messages.js'

/** What the user said in one turn. */
export interface TurnInput {
  /** Session id; `default` when not given. */
  session: string
  text: string
  /** Emotion label from speech recognition (`happy`, `neutral`, …). */
  emotion?: string
  /** Image URLs, `data:` URIs or local paths inside `assets.dirs`. */
  images?: string[]
  /** Local file paths inside `assets.dirs` (text files are read into the message). */
  files?: string[]
  /**
   * Images of the message being replied to, described as `[回复图片:…]` (`[Replied image: …]`) for a
   * model without vision.
   */
  replyImages?: string[]
  /** Who said this, in a group chat. */
  speaker?: Speaker
  /**
   * An audience turn's one person, when every message it answers is theirs: whose memory the turn
   * is (`memory.per_person`). Unlike `speaker` it changes nothing in the prompt (the messages are
   * already rendered with their speakers).
   */
  audienceSpeaker?: Speaker
  /**
   * The person the turn is from, as a person id (`client:<client name>:<id>`, …; see
   * `parsePersonId`), when the caller knows it: whose memory the turn is with `memory.per_person`,
   * and whose memories it recalls. It wins over what `speaker` and the session say and, unlike
   * `speaker`, changes nothing in the prompt. The server names a named client's `/v1` `user` so.
   */
  person?: string
  /** The text exactly as the caller sent it, when `text` was rendered with speaker and observed lines. */
  spokenText?: string
  /**
   * The stable id of the character spoken to (`characters`); absent: the default character. Its
   * memories are kept apart from every other character's (see `memoryScopeOf`).
   */
  character?: string
  /**
   * The client's id for this input (at most 128 characters). A resend of an id the session already
   * has is the same turn: it is never stored twice, and a finished turn is answered again from the
   * store. Resend with the same id whenever a turn ends with `store_outcome_unknown` (or the
   * connection dropped before `llm_done`).
   */
  id?: string
  /**
   * The client's own prompt (an OpenAI-compatible client that sends its conversation): its history
   * replaces the stored one in the prompt, and its system prompt, when it sends one, replaces the
   * character's name, persona, scenario and example dialogue (the reply-format instructions, the
   * lorebook and memories are still added).
   */
  clientPrompt?: ClientPrompt
  /**
   * Function tools the client runs itself: offered to the model beside the server's. A call of one
   * is not run here: the turn ends with its `tool_call` event (marked `client`), and the client
   * sends the result back with the same input, the call and its result in `clientPrompt.toolRounds`.
   */
  clientTools?: ToolDefinition[]
  /**
   * The model must call a tool in this turn: any of them (`required`) or the named one. It goes
   * with the model call until a tool has been called (providers that can force a call do), so the
   * model can still answer in words after a server tool's result. Whether the model complied is
   * told by the turn's `tool_call` events.
   */
  toolChoice?: 'required' | { name: string }
  /**
   * Nothing of the session is read or kept: no stored history or memory reaches the prompt, no
   * greeting is sent, and the turn is neither stored nor remembered.
   */
  stateless?: boolean
  /**
   * The id of the session's newest turn this input asks again (a regenerated reply): that turn is
   * left out of the prompt, and once this turn has a reply it takes that turn's place in the
   * history instead of being added after it.
   */
  replaces?: string
}

/** A conversation as a client keeps it, sent with its newest input. */
export interface ClientPrompt {
  system?: string
  /** The client's earlier turns, in place of the stored ones; absent: the session's stored history is used. */
  history?: ClientPromptMessage[]
  /**
   * This turn's tool rounds so far: the model's calls of client tools and their results, sent after
   * the input (after the context pipeline, as the engine's own tool rounds are).
   */
  toolRounds?: ClientPromptMessage[]
}

/** A message of a client's conversation: words, the model's calls of client tools, or a tool's result. */
export type ClientPromptMessage =
  | { role: 'user' | 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; content: string; toolCallId: string }

/** Someone in a group chat: a stable id and an optional display name. */
export interface Speaker {
  id: string
  name?: string
}

export interface ModelCapabilities {
  provider: string
  apiType: ApiType
  model: string
  /** Accepts image parts. */
  vision: boolean
  /** Native tool calling. */
  functionCalling: boolean
  /** Accepts a `system` role (Anthropic takes it as a separate parameter, which counts as yes). */
  systemRole: boolean
  contextWindow: number
  /** Tokens reserved for the reply. */
  maxTokens: number
}

export interface TokenCounter {
  /** Tokens of a piece of text for the current model (exact for OpenAI models, estimated otherwise). */
  countText(text: string): number
  /** Tokens of a whole message including per-message overhead; cached per message object. */
  countMessage(message: ChatMessage): number
}

/** Turns an audio recording into its words. */
export type { AudioTranscriber } from '../shared/audio-transcriber.js'
/** Turns an image into a short description for models without vision. */
export type { ImageDescriber } from '../shared/image-describer.js'

export interface PipelineServices {
  history: HistoryStore
  memory?: MemoryRetriever
  tokenCounter: TokenCounter
  imageDescriber?: ImageDescriber
  audioTranscriber?: AudioTranscriber
  logger: Logger
  /** The engine's clock: it times the recall budget (`memory.recall_timeout_ms`). Default: the process's timers. */
  clock?: RecallTimers
}

export interface PipelineLog {
  processorId: string
  level: 'debug' | 'info' | 'warn' | 'error'
  message: string
  details?: unknown
}

export interface PipelineContext {
  /** The messages being built; processors change this array in place. */
  messages: ChatMessage[]
  readonly input: TurnInput
  readonly character: CharacterConfig
  /** The whole config the turn runs on (read-only). */
  readonly config: CharpipeConfig
  readonly capabilities: ModelCapabilities
  readonly services: PipelineServices
  /** When the turn started (ms since the epoch); macros use it so one turn sees one time. */
  readonly timestamp: number
  readonly signal?: AbortSignal
  /** Blackboard for processors to pass data along (e.g. retrieved memories with scores). */
  sharedData: Map<string, unknown>
  logs: PipelineLog[]
}

export type ProcessorFieldType = 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'json'

export interface ProcessorConfigField {
  key: string
  label: string
  type?: ProcessorFieldType
  description?: string
  placeholder?: string
  default?: unknown
  options?: { label: string; value: unknown }[]
  /** Number fields: the smallest value that makes sense (checked at config load). */
  min?: number
  /** Number fields: the largest value that makes sense (checked at config load). */
  max?: number
  /** Number fields: whole numbers only. */
  integer?: boolean
}

/** A problem in one processor's settings; `path` is relative to its entry (`rules.0.pattern`). */
export interface ProcessorSettingsIssue {
  path: string
  message: string
}

export interface ContextProcessor {
  /** Unique id, e.g. `session-loader`; the key in `pipeline.processors`. */
  id: string
  name: string
  description: string
  /** Lower runs first. */
  priority: number
  /** Core processors are never skipped on error: their failure fails the turn. */
  isCore?: boolean
  defaultEnabled?: boolean
  configFields?: ProcessorConfigField[]
  /**
   * Validates this processor's settings at config load; returns problems as `message`s, or as
   * `{path, message}` with a path relative to the processor's entry (e.g. `rules.0.pattern`).
   */
  validateSettings?(settings: ProcessorSettings): (string | ProcessorSettingsIssue)[]
  execute(context: PipelineContext, settings: ProcessorSettings): Promise<void> | void
}

/** A message of the final context with its source and token count, as the preview shows it. */
export interface PreviewMessage {
  role: ChatMessage['role']
  content: ChatMessage['content']
  source: string
  tokens: number
}

export interface PreviewResult {
  messages: PreviewMessage[]
  total_tokens: number
  logs: PipelineLog[]
}

/** A processor as listed by `GET /api/processors` and the web page. */
export interface ProcessorInfo {
  id: string
  name: string
  description: string
  /** Effective priority (configured or the processor's own). */
  priority: number
  enabled: boolean
  isCore: boolean
  configFields: ProcessorConfigField[]
  /** Effective settings after the merge of llm.processors and pipeline.processors. */
  settings: ProcessorSettings
}

export interface BuildContextOptions {
  input: TurnInput
  config: CharpipeConfig
  capabilities: ModelCapabilities
  services: PipelineServices
  signal?: AbortSignal
  /** Defaults to now. */
  timestamp?: number
}

export interface BuildContextResult {
  /** Final messages, ready for the provider. */
  messages: ChatMessage[]
  logs: PipelineLog[]
  sharedData: Map<string, unknown>
}

export interface ContextPipeline {
  /** Runs the enabled processors in priority order. */
  build(options: BuildContextOptions): Promise<BuildContextResult>
  /** Like build, with source tags and token counts per message (R3.5). */
  preview(options: BuildContextOptions): Promise<PreviewResult>
  listProcessors(config: CharpipeConfig): ProcessorInfo[]
  /** Adds a processor to this pipeline (plugins). Replaces one with the same id. */
  register(processor: ContextProcessor): void
}
