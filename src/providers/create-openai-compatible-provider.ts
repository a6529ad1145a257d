/**
 * OpenAI-compatible providers (OpenAI, DeepSeek, Moonshot, Doubao, Ollama, custom and unknown names)
 * through the official `openai` SDK. The SDK builds and sends the request and turns non-2xx answers
 * into errors; its own retries are off (ours run once, in `createResilientProvider`). The streamed
 * body is read by our strict SSE reader rather than the SDK's `Stream`, which silently ends on a
 * caller's abort, accepts a body that stops without `[DONE]`, and skips lines that are no SSE at all:
 * each of those must become a clear error here. Requests go out through `createNodeFetch` (keep-alive
 * `node:http` agents, the body read from the Node message) unless the settings bring a `fetch`.
 */
import type OpenAI from 'openai'
import { loadOnFirstUse } from '../shared/load-on-first-use.js'
import { getLogger } from '../shared/logger.js'
import {
  type ChatProviderSettings,
  defaultStallTimeoutMs,
  defaultTimeoutMs,
} from './chat-provider-settings.js'
import {
  convertToOpenAIMessages,
  convertToOpenAIToolChoice,
  convertToOpenAITools,
} from './convert-to-openai-messages.js'
import { convertToUpstreamError, logUpstreamFailure } from './convert-to-upstream-error.js'
import { createNodeBodyPump } from './create-node-body-pump.js'
import { createNodeFetch, takeNodeBody } from './create-node-fetch.js'
import { createOpenAIStreamReader, type OpenAIStreamReader } from './create-openai-stream-reader.js'
import { createRequestTimer, type RequestTimer } from './create-request-timer.js'
import { iterateEventBatches } from './iterate-event-batches.js'
import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from './types.js'

/** Joins a base URL and a path without doubling or dropping the slash. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/** An OpenAI-compatible provider; `close()` releases its kept-alive connections. */
export interface OpenAICompatibleProvider extends ChatProvider {
  close(): void
}

export function createOpenAICompatibleProvider(settings: ChatProviderSettings): OpenAICompatibleProvider {
  const logger = settings.logger ?? getLogger('providers')
  const timeoutMs = settings.timeoutMs ?? defaultTimeoutMs
  const stallTimeoutMs = settings.stallTimeoutMs ?? defaultStallTimeoutMs
  // One transport per provider, built with it: a caller's fetch (tests, proxies) is used as given.
  const transport = settings.fetch ? undefined : createNodeFetch()
  const loadClient = loadOnFirstUse(async () => {
    const { default: OpenAI } = await import('openai')
    return new OpenAI({
      baseURL: settings.baseUrl,
      // Local servers (Ollama, custom) need no key, but the SDK refuses to start without one.
      apiKey: settings.apiKey || 'no-key',
      maxRetries: 0,
      // Our timer owns the first-chunk timeout; the SDK's only guards against a hung connect.
      timeout: timeoutMs + 1000,
      logLevel: 'off',
      fetch: settings.fetch ?? transport!.fetch,
    })
  })
  const url = joinUrl(settings.baseUrl, 'chat/completions')

  return {
    name: settings.name,
    model: settings.model,
    close() {
      transport?.close()
    },
    streamChat(request: ChatRequest, options: StreamChatOptions = {}): AsyncIterable<ProviderEvent> {
      let timer: RequestTimer | undefined
      let reader: OpenAIStreamReader | undefined
      let responded = false
      return iterateEventBatches({
        async open() {
          timer = createRequestTimer({ signal: options.signal, timeoutMs, stallTimeoutMs })
          const body: OpenAI.ChatCompletionCreateParamsStreaming = {
            model: request.model || settings.model,
            messages: convertToOpenAIMessages(request.messages) as OpenAI.ChatCompletionMessageParam[],
            stream: true,
            stream_options: { include_usage: true },
          }
          const temperature = request.temperature ?? settings.temperature
          if (temperature !== undefined) body.temperature = temperature
          const maxTokens = request.maxTokens ?? settings.maxTokens
          if (maxTokens !== undefined) body.max_tokens = maxTokens
          if (request.tools?.length) {
            body.tools = convertToOpenAITools(request.tools)
            if (request.toolChoice) body.tool_choice = convertToOpenAIToolChoice(request.toolChoice)
          }
          const headers = settings.requestHeaders?.(request)
          const client = await loadClient()
          const response = await client.chat.completions
            .create(body, { signal: timer.signal, ...(headers ? { headers } : {}) })
            .asResponse()
          responded = true
          const message = takeNodeBody(response)
          reader = message
            ? createOpenAIStreamReader({ body: null, pump: createNodeBodyPump(message), timer })
            : createOpenAIStreamReader({ body: response.body, timer })
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
