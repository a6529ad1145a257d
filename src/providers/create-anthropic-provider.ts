/**
 * Anthropic through the official `@anthropic-ai/sdk`: the SDK builds and sends the Messages request
 * (the system prompt as the `system` parameter, text and image blocks, `tool_use`/`tool_result`) and
 * turns non-2xx answers into errors; its retries are off (ours run in the resilient wrapper). The
 * streamed body is taken from it (`.asResponse()`) and read by our strict SSE reader
 * (`createAnthropicStreamReader`) instead of the SDK's `Stream`, which costs about as much again per
 * chunk as the rest of the turn, ends quietly on an abort and skips lines that are no SSE at all.
 * Thinking comes out as reasoning; a mid-stream `event: error` (e.g. `overloaded_error`) becomes an
 * `upstream_stream` error, retryable while nothing has been passed on yet.
 */
import type Anthropic from '@anthropic-ai/sdk'
import { UpstreamStreamError } from '../shared/errors.js'
import { loadOnFirstUse } from '../shared/load-on-first-use.js'
import { getLogger } from '../shared/logger.js'
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
import { type AnthropicStreamReader, createAnthropicStreamReader } from './create-anthropic-stream-reader.js'
import { createNodeFetch } from './create-node-fetch.js'
import { joinUrl } from './create-openai-compatible-provider.js'
import { createRequestTimer, type RequestTimer } from './create-request-timer.js'
import { createStreamTakingFetch } from './create-stream-taking-fetch.js'
import { iterateEventBatches } from './iterate-event-batches.js'
import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from './types.js'

/** An Anthropic provider; `close()` releases its kept-alive connections. */
export interface AnthropicProvider extends ChatProvider {
  close(): void
}

/** `temperature` is still accepted by the API, though this SDK's types no longer declare it. */
type MessagesBody = Anthropic.MessageCreateParamsStreaming & { temperature?: number }

/** The Messages request body of a chat request. */
function buildMessagesBody(request: ChatRequest, settings: ChatProviderSettings): MessagesBody {
  const plain = convertToAnthropicMessages(request.messages)
  const converted = settings.promptCache ? placeCacheBreakpoints(plain) : plain
  const body: MessagesBody = {
    model: request.model || settings.model,
    max_tokens: request.maxTokens ?? settings.maxTokens ?? 1024,
    messages: converted.messages as Anthropic.MessageParam[],
    stream: true,
  }
  if (converted.system) body.system = converted.system as Anthropic.MessageCreateParams['system']
  const temperature = request.temperature ?? settings.temperature
  // Anthropic accepts 0–1, while the config allows up to 2 for OpenAI-style providers.
  if (temperature !== undefined) body.temperature = Math.min(1, temperature)
  if (request.tools?.length) {
    body.tools = convertToAnthropicTools(request.tools) as Anthropic.Tool[]
    if (request.toolChoice) body.tool_choice = convertToAnthropicToolChoice(request.toolChoice)
  }
  return body
}

export function createAnthropicProvider(settings: ChatProviderSettings): AnthropicProvider {
  const logger = settings.logger ?? getLogger('providers')
  const timeoutMs = settings.timeoutMs ?? defaultTimeoutMs
  const stallTimeoutMs = settings.stallTimeoutMs ?? defaultStallTimeoutMs
  // One transport per provider, built with it: a caller's fetch (tests, proxies) is used as given.
  const transport = settings.fetch ? undefined : createNodeFetch()
  const streams = createStreamTakingFetch(settings.fetch ?? transport!.fetch)
  const loadClient = loadOnFirstUse(async () => {
    const { default: Anthropic } = await import('@anthropic-ai/sdk')
    return new Anthropic({
      baseURL: settings.baseUrl,
      apiKey: settings.apiKey ?? '',
      maxRetries: 0,
      // Our timer owns the first-chunk timeout; the SDK's only guards against a hung connect.
      timeout: timeoutMs + 1000,
      logLevel: 'off',
      fetch: streams.fetch,
    })
  })
  const url = joinUrl(settings.baseUrl, 'v1/messages')

  return {
    name: settings.name,
    model: settings.model,
    close() {
      transport?.close()
    },
    streamChat(request: ChatRequest, options: StreamChatOptions = {}): AsyncIterable<ProviderEvent> {
      let timer: RequestTimer | undefined
      let reader: AnthropicStreamReader | undefined
      let responded = false
      return iterateEventBatches({
        async open() {
          timer = createRequestTimer({ signal: options.signal, timeoutMs, stallTimeoutMs })
          const body = buildMessagesBody(request, settings)
          const client = await loadClient()
          const response = await client.messages.create(body, { signal: timer.signal }).asResponse()
          responded = true
          const stream = streams.takeStream(response)
          if (!stream) {
            // A 2xx that is no event stream (a proxy that ignored `stream: true`): nothing to read.
            response.body?.cancel().catch(() => {})
            throw new UpstreamStreamError('upstream answered without an event stream')
          }
          reader = createAnthropicStreamReader({ body: stream, timer })
          return reader
        },
        fail(error) {
          // `open` sets the timer before anything that can fail.
          const failure = convertToUpstreamError(error, { url, timer: timer!, responded })
          logUpstreamFailure(logger, failure, { provider: settings.name, url })
          return failure
        },
        close(completed) {
          if (!completed) reader?.cancel()
          timer?.dispose(completed)
        },
      })
    },
  }
}
