/**
 * The OpenClaw gateway (SPEC R1.3, seed 001): `POST <url>/v1/chat/completions` with exactly
 * `{"model":"openclaw","stream":true,"messages":[{"role":"user","content":"<text>"}]}`. Only the
 * current user message is sent, because the gateway keeps the conversation itself. Headers:
 * `Accept: text/event-stream`, `Authorization: Bearer <token>` only when a token is set,
 * `x-openclaw-session-key`, and `x-openclaw-agent-id` when not empty. Plain `fetch` rather than the
 * SDK, which would add its own auth and client headers to a request whose shape is fixed.
 *
 * The gateway reports some failures in-band, as an `Error: …` content chunk with HTTP 200: text is
 * held back while it could still be such a prefix, and a reply that starts with it fails with
 * `upstream_stream` instead of being spoken.
 */
import { UpstreamHttpError, UpstreamStreamError } from '../shared/errors.js'
import { getLogger, scrubSecrets } from '../shared/logger.js'
import { messageText } from '../shared/messages.js'
import { readBoundedText } from '../shared/read-bounded-text.js'
import {
  type ChatProviderSettings,
  defaultStallTimeoutMs,
  defaultTimeoutMs,
} from './chat-provider-settings.js'
import {
  convertToUpstreamError,
  excerptBody,
  logUpstreamFailure,
  parseRetryAfter,
} from './convert-to-upstream-error.js'
import { joinUrl } from './create-openai-compatible-provider.js'
import { createOpenAIStreamReader, type OpenAIStreamReader } from './create-openai-stream-reader.js'
import { createRequestTimer } from './create-request-timer.js'
import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from './types.js'

const inBandErrorPrefix = 'Error:'
/** Of an error answer, the part read for its excerpt. */
const maxErrorBodyBytes = 64 * 1024

/** The text of the last user message: the only one the gateway gets. */
function currentUserText(request: ChatRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index--) {
    const message = request.messages[index]!
    if (message.role === 'user') return messageText(message)
  }
  throw new UpstreamStreamError('OpenClaw needs a user message to send, and the request has none')
}

/** Builds the exact headers of SPEC R1.3. */
function buildOpenClawHeaders(settings: ChatProviderSettings): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' }
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`
  const sessionKey = settings.openclaw?.sessionKey ?? 'main'
  if (sessionKey) headers['x-openclaw-session-key'] = sessionKey
  if (settings.openclaw?.agentId) headers['x-openclaw-agent-id'] = settings.openclaw.agentId
  return headers
}

export function createOpenClawProvider(settings: ChatProviderSettings): ChatProvider {
  const logger = settings.logger ?? getLogger('providers')
  const timeoutMs = settings.timeoutMs ?? defaultTimeoutMs
  const stallTimeoutMs = settings.stallTimeoutMs ?? defaultStallTimeoutMs
  const url = joinUrl(settings.baseUrl, 'v1/chat/completions')
  const doFetch = settings.fetch ?? fetch

  return {
    name: settings.name,
    model: 'openclaw',
    async *streamChat(request: ChatRequest, options: StreamChatOptions = {}): AsyncIterable<ProviderEvent> {
      const timer = createRequestTimer({ signal: options.signal, timeoutMs, stallTimeoutMs })
      let reader: OpenAIStreamReader | undefined
      let responded = false
      try {
        const body = JSON.stringify({
          model: 'openclaw',
          stream: true,
          messages: [{ role: 'user', content: currentUserText(request) }],
        })
        const response = await doFetch(url, {
          method: 'POST',
          headers: buildOpenClawHeaders(settings),
          body,
          signal: timer.signal,
        })
        responded = true
        if (!response.ok) {
          // The excerpt needs the start of the body only: a gateway's error page can be any size.
          const text = (await readBoundedText(response, maxErrorBodyBytes).catch(() => undefined))?.text ?? ''
          throw new UpstreamHttpError(response.status, excerptBody(text), {
            retryAfterSeconds: parseRetryAfter(response.headers),
          })
        }
        reader = createOpenAIStreamReader({ body: response.body, timer })
        // Text held back while it could still be the start of an in-band `Error:`.
        let held = ''
        let decided = false
        for (;;) {
          const batch = await reader.next()
          if (!batch) break
          for (const event of batch) {
            if (decided || event.type !== 'text-delta') {
              if (!decided && event.type === 'finish' && held) {
                if (held.startsWith(inBandErrorPrefix)) throw inBandError(held)
                decided = true
                yield { type: 'text-delta', text: held }
              }
              yield event
              continue
            }
            held += event.text
            if (held.length < inBandErrorPrefix.length && inBandErrorPrefix.startsWith(held)) continue
            if (held.startsWith(inBandErrorPrefix)) continue
            decided = true
            yield { type: 'text-delta', text: held }
          }
        }
        if (!decided && held.startsWith(inBandErrorPrefix)) throw inBandError(held)
      } catch (error) {
        const failure = convertToUpstreamError(error, { url, timer, responded })
        logUpstreamFailure(logger, failure, { provider: settings.name, url })
        throw failure
      } finally {
        reader?.cancel()
        timer.dispose()
      }
    },
  }
}

function inBandError(text: string): UpstreamStreamError {
  const message = scrubSecrets(text.slice(inBandErrorPrefix.length).trim()).slice(0, 300)
  return new UpstreamStreamError(`OpenClaw gateway reported an error: ${message}`)
}
