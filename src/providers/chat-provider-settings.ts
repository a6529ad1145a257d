/**
 * Settings for one provider instance, already resolved against the registry (no empty base URL or
 * model left for the registry to fill). `createChatProvider` picks the client from `apiType`.
 */
import type { ApiType } from '../config/provider-registry.js'
import type { Logger } from '../shared/logger.js'
import type { ChatRequest } from './types.js'

export interface OpenClawSettings {
  /** Sent as `x-openclaw-session-key`. */
  sessionKey: string
  /** Sent as `x-openclaw-agent-id` when not empty. */
  agentId: string
}

export interface MockProviderSettings {
  /** How the builtin mock shapes its replies (`character.reply_format`). */
  replyFormat?: 'json' | 'prefix' | 'auto' | 'plain'
  /** Emotion labels the mock cycles through (`character.emotions`). */
  emotions?: string[]
  /** The character's name, used in the mock's replies. */
  characterName?: string
  /** Characters per streamed chunk. @default 3 */
  chunkSize?: number
  /** Pause between chunks, to look like a real model. @default 5 */
  chunkDelayMs?: number
}

export interface ChatProviderSettings {
  /** Registry name, e.g. `deepseek`. */
  name: string
  apiType: ApiType
  baseUrl: string
  model: string
  apiKey?: string
  /** Used when a request gives none. */
  temperature?: number
  /** Used when a request gives none. */
  maxTokens?: number
  /** No first chunk by then: abort. @default 120000 */
  timeoutMs?: number
  /** No chunk for this long mid-stream: abort. @default 30000 */
  stallTimeoutMs?: number
  /** Anthropic: cache breakpoints on the system prompt and the end of the history. @default false */
  promptCache?: boolean
  /** For `apiType: 'openclaw'`. */
  openclaw?: OpenClawSettings
  /** For `apiType: 'mock'`. */
  mock?: MockProviderSettings
  /** Extra headers for one request (OpenAI-compatible providers), e.g. a gateway's routing header. */
  requestHeaders?: (request: ChatRequest) => Record<string, string> | undefined
  logger?: Logger
  /** Replaces the global `fetch` (tests, proxies). */
  fetch?: typeof fetch
}

export const defaultTimeoutMs = 120_000
export const defaultStallTimeoutMs = 30_000
