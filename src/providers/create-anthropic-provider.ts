/**
 * Anthropic through the official `@anthropic-ai/sdk` Messages streaming: the system prompt as the
 * `system` parameter, text and image blocks, `tool_use`/`tool_result`, thinking as reasoning. A
 * mid-stream `event: error` (e.g. `overloaded_error`) becomes an `upstream_stream` error, retryable
 * while nothing has been passed on yet. The SDK's retries are off: ours run in the resilient wrapper.
 */
import type Anthropic from '@anthropic-ai/sdk'
import { UpstreamStreamError } from '../shared/errors.js'
import { loadOnFirstUse } from '../shared/load-on-first-use.js'
import { getLogger, scrubSecrets } from '../shared/logger.js'
import {
  type ChatProviderSettings,
  defaultStallTimeoutMs,
  defaultTimeoutMs,
} from './chat-provider-settings.js'
import {
  convertToAnthropicMessages,
  convertToAnthropicToolChoice,
  convertToAnthropicTools,
  placeCacheBreakpoints,
} from './convert-to-anthropic-messages.js'
import { convertToUpstreamError, logUpstreamFailure } from './convert-to-upstream-error.js'
import { createNodeFetch } from './create-node-fetch.js'
import { joinUrl } from './create-openai-compatible-provider.js'
import { createRequestTimer } from './create-request-timer.js'
import { createPumpingFetch } from './pump-response-body.js'
import { isLargeDelta, yieldInSlices } from './slice-large-delta.js'
import type {
  ChatProvider,
  ChatRequest,
  FinishReason,
  ProviderEvent,
  StreamChatOptions,
  Usage,
} from './types.js'

const stopReasons: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
}

const retryableStreamErrors = new Set(['overloaded_error', 'api_error', 'rate_limit_error'])

/** The `{type, message}` of a mid-stream `event: error`, which the SDK throws without a status. */
function streamErrorOf(error: unknown): { type: string; message: string } | undefined {
  const body = (error as { error?: { error?: { type?: unknown; message?: unknown } } } | null)?.error
  const inner = body?.error
  if ((error as { status?: unknown })?.status !== undefined || typeof inner?.type !== 'string')
    return undefined
  return { type: inner.type, message: typeof inner.message === 'string' ? inner.message : '' }
}

interface PendingToolUse {
  id: string
  name: string
  json: string
}

/** An Anthropic provider; `close()` releases its kept-alive connections. */
export interface AnthropicProvider extends ChatProvider {
  close(): void
}

export function createAnthropicProvider(settings: ChatProviderSettings): AnthropicProvider {
  const logger = settings.logger ?? getLogger('providers')
  const timeoutMs = settings.timeoutMs ?? defaultTimeoutMs
  const stallTimeoutMs = settings.stallTimeoutMs ?? defaultStallTimeoutMs
  // One transport per provider, built with it: a caller's fetch (tests, proxies) is used as given.
  const transport = settings.fetch ? undefined : createNodeFetch()
  const loadClient = loadOnFirstUse(async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk')
    return new Anthropic({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey ?? '',
      maxRetries: 0,
      timeout: timeoutMs + 1000,
      logLevel: 'off',
      // The SDK reads the body lazily; pumped, text that arrived before a cut connection is kept.
      fetch: createPumpingFetch(settings.fetch ?? transport!.fetch),
    })
  })
  const url = joinUrl(settings.baseUrl, 'v1/messages')

  return {
    name: settings.name,
    model: settings.model,
    close() {
      transport?.close()
    },
    async *streamChat(request: ChatRequest, options: StreamChatOptions = {}): AsyncIterable<ProviderEvent> {
      const timer = createRequestTimer({ signal: options.signal, timeoutMs, stallTimeoutMs })
      let responded = false
      let yielded = false
      let completed = false
      try {
        const plain = convertToAnthropicMessages(request.messages)
        const converted = settings.promptCache ? placeCacheBreakpoints(plain) : plain
        const client = await loadClient()
        const stream = await client.messages.create(
          {
            model: request.model || settings.model,
            max_tokens: request.maxTokens ?? settings.maxTokens ?? 1024,
            messages: converted.messages as Anthropic.MessageParam[],
            stream: true,
            ...(converted.system
              ? { system: converted.system as Anthropic.MessageCreateParams['system'] }
              : {}),
            // Anthropic accepts 0–1, while the config allows up to 2 for OpenAI-style providers.
            ...((request.temperature ?? settings.temperature) !== undefined
              ? { temperature: Math.min(1, (request.temperature ?? settings.temperature)!) }
              : {}),
            ...(request.tools?.length
              ? { tools: convertToAnthropicTools(request.tools) as Anthropic.Tool[] }
              : {}),
            ...(request.tools?.length && request.toolChoice
              ? { tool_choice: convertToAnthropicToolChoice(request.toolChoice) }
              : {}),
          },
          { signal: timer.signal },
        )
        responded = true
        const usage: Usage = { inputTokens: 0, outputTokens: 0 }
        const tools = new Map<number, PendingToolUse>()
        let stopReason: FinishReason | undefined
        let stopped = false
        for await (const event of stream) {
          timer.markChunk()
          switch (event.type) {
            case 'message_start': {
              const start = event.message.usage
              usage.inputTokens = start.input_tokens ?? 0
              usage.outputTokens = start.output_tokens ?? 0
              if (typeof start.cache_read_input_tokens === 'number')
                usage.cachedInputTokens = start.cache_read_input_tokens
              break
            }
            case 'content_block_start': {
              const block = event.content_block
              if (block.type === 'tool_use')
                tools.set(event.index, { id: block.id, name: block.name, json: '' })
              else if (block.type === 'text' && block.text) {
                yielded = true
                const piece: ProviderEvent = { type: 'text-delta', text: block.text }
                if (isLargeDelta(piece)) yield* yieldInSlices(piece)
                else yield piece
              }
              break
            }
            case 'content_block_delta': {
              const delta = event.delta
              if (delta.type === 'text_delta' && delta.text) {
                yielded = true
                const piece: ProviderEvent = { type: 'text-delta', text: delta.text }
                if (isLargeDelta(piece)) yield* yieldInSlices(piece)
                else yield piece
              } else if (delta.type === 'thinking_delta' && delta.thinking) {
                yielded = true
                const piece: ProviderEvent = { type: 'reasoning-delta', text: delta.thinking }
                if (isLargeDelta(piece)) yield* yieldInSlices(piece)
                else yield piece
              } else if (delta.type === 'input_json_delta') {
                const tool = tools.get(event.index)
                if (tool) tool.json += delta.partial_json
              }
              break
            }
            case 'content_block_stop': {
              const tool = tools.get(event.index)
              if (!tool) break
              tools.delete(event.index)
              const rawArguments = tool.json.trim() === '' ? '{}' : tool.json
              let parsed: unknown
              try {
                parsed = JSON.parse(rawArguments)
              } catch {
                throw new UpstreamStreamError(
                  `upstream sent tool_use "${tool.name}" with input that is not JSON`,
                )
              }
              yielded = true
              yield { type: 'tool-call', id: tool.id, name: tool.name, arguments: parsed, rawArguments }
              break
            }
            case 'message_delta':
              if (event.delta.stop_reason) stopReason = stopReasons[event.delta.stop_reason] ?? 'other'
              if (typeof event.usage.output_tokens === 'number')
                usage.outputTokens = event.usage.output_tokens
              if (typeof event.usage.input_tokens === 'number') usage.inputTokens = event.usage.input_tokens
              break
            case 'message_stop':
              stopped = true
              break
          }
        }
        // The SDK's stream ends quietly on an abort; an abort or timeout must still be reported.
        if (timer.cause) throw timer.toError()
        if (!stopped) throw new UpstreamStreamError('upstream stream ended before message_stop')
        completed = true
        yield { type: 'usage', usage }
        yield { type: 'finish', reason: stopReason ?? 'stop' }
      } catch (error) {
        const streamError = timer.cause ? undefined : streamErrorOf(error)
        const failure = streamError
          ? new UpstreamStreamError(
              `upstream reported ${streamError.type} mid-stream: ${scrubSecrets(streamError.message)}`,
              { cause: error, retryable: !yielded && retryableStreamErrors.has(streamError.type) },
            )
          : error instanceof SyntaxError
            ? new UpstreamStreamError('upstream sent a data line that is not JSON', {
                cause: error,
              })
            : convertToUpstreamError(error, { url, timer, responded })
        logUpstreamFailure(logger, failure, { provider: settings.name, url })
        throw failure
      } finally {
        timer.dispose(completed)
      }
    },
  }
}
