/**
 * The provider contract: a chat request in, an async iterable of provider events out. Every provider
 * (OpenAI-compatible, Anthropic, OpenClaw, mock) implements this one interface; the retry/fallback
 * loop wraps it. Failures are thrown as `CharpipeError`s (see shared/errors.ts); an abort through
 * `signal` closes the HTTP request at once and ends the iterable with an `AbortedError`.
 */
import type { ChatMessage, ToolDefinition } from '../shared/messages.js'

/** Whether the model must call a tool: `auto` (it chooses), `required` (any of them) or the named one. */
export type ToolChoice = 'auto' | 'required' | { name: string }

export interface ChatRequest {
  /** Final messages from the context pipeline (already formatted for this provider's rules). */
  messages: ChatMessage[]
  tools?: ToolDefinition[]
  /** Only with `tools`. @default 'auto' */
  toolChoice?: ToolChoice
  temperature?: number
  maxTokens?: number
  /** Overrides the provider's configured model for this request. */
  model?: string
}

export interface StreamChatOptions {
  signal?: AbortSignal
  /**
   * Called once, with the first event, naming the provider and model that answer: a fallback's
   * when the primary failed (the resilient provider calls it; a single provider need not).
   */
  onAnswer?: (answer: ProviderAnswer) => void
}

/** Which provider (its config name) and model answered a request. */
export interface ProviderAnswer {
  provider: string
  model: string
}

export interface Usage {
  inputTokens: number
  outputTokens: number
  /** Tokens spent on reasoning, when the provider reports them. */
  reasoningTokens?: number
  cachedInputTokens?: number
}

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other'

export type ProviderEvent =
  /** Text the character says. */
  | { type: 'text-delta'; text: string }
  /** Model reasoning (DeepSeek reasoning_content, <think>…</think>): never spoken. */
  | { type: 'reasoning-delta'; text: string }
  /** A complete tool call, emitted once its arguments have fully arrived. */
  | { type: 'tool-call'; id: string; name: string; arguments: unknown; rawArguments: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason }

/**
 * What the iterator of a built-in provider's stream adds to `AsyncIterator<ProviderEvent>`: the
 * events already read (one network read's) in one promise, instead of one promise per event. The
 * engine uses it when it is there; a custom provider need not have it. `next()` and `nextBatch()`
 * may be mixed and hand out the same text in the same order; a batch may join adjacent text (or
 * reasoning) deltas into one.
 */
export interface ProviderEventBatches {
  /** The next events (at least one), or `undefined` once the stream is over; throws as `next()` does. */
  nextBatch(): Promise<readonly ProviderEvent[] | undefined>
}

/** Whether a stream's iterator can hand over its events a batch at a time. */
export function hasEventBatches<T>(
  iterator: AsyncIterator<T>,
): iterator is AsyncIterator<T> & { nextBatch(): Promise<readonly T[] | undefined> } {
  return typeof (iterator as Partial<ProviderEventBatches>).nextBatch === 'function'
}

export interface ChatProvider {
  /** Registry name, e.g. `deepseek`. */
  readonly name: string
  readonly model: string
  streamChat(request: ChatRequest, options?: StreamChatOptions): AsyncIterable<ProviderEvent>
}
