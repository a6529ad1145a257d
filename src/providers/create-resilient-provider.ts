/**
 * The one retry loop (SPEC R1.5): a primary provider and its fallbacks behind one `ChatProvider`.
 * Before the first event is passed on, a retryable failure (network, 408, 409, 429, 5xx, timeout)
 * is retried with exponential backoff and jitter, honouring `Retry-After`; once the retries are used
 * up, or for a failure that retrying cannot fix, the next fallback is tried. Once an event has been
 * passed on, a failure is final, so no text is ever repeated. A caller's abort is never retried.
 */
import { AbortedError, CharpipeError } from '../shared/errors.js'
import { getLogger, type Logger } from '../shared/logger.js'
import { type ChatResult, collectChatResult } from './collect-chat-result.js'
import type { ChatProvider, ChatRequest, ProviderEvent, StreamChatOptions } from './types.js'

export interface CreateResilientProviderOptions {
  primary: ChatProvider
  /** Tried in order once the primary has failed before its first event. */
  fallbacks?: ChatProvider[]
  /** Retries per provider, before its first event. @default 2 */
  maxRetries?: number
  /** First backoff delay; doubles on each retry. @default 500 */
  baseDelayMs?: number
  /** Longest wait, also for a `Retry-After`. @default 30000 */
  maxDelayMs?: number
  logger?: Logger
  /** Waits between attempts (tests pass one that records the delays). */
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>
  /** Random source for the jitter, in [0, 1). @default Math.random */
  random?: () => number
}

/** Waits, or rejects with `AbortedError` as soon as `signal` fires. */
export function sleepWithSignal(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError())
    const onAbort = () => {
      clearTimeout(timer)
      reject(new AbortedError())
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, milliseconds)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

function toCharpipeError(error: unknown): CharpipeError {
  if (CharpipeError.isInstance(error)) return error
  return new CharpipeError('internal', error instanceof Error ? error.message : String(error), {
    cause: error,
  })
}

/** The wrapped providers behind one; `close()` releases what they hold (kept-alive connections). */
export interface ResilientProvider extends ChatProvider {
  /** The whole answer at once: `streamChat` collected, so it retries and falls back the same way. */
  chat(request: ChatRequest, options?: StreamChatOptions): Promise<ChatResult>
  close(): void
}

export function createResilientProvider(options: CreateResilientProviderOptions): ResilientProvider {
  const providers = [options.primary, ...(options.fallbacks ?? [])]
  const maxRetries = options.maxRetries ?? 2
  const baseDelayMs = options.baseDelayMs ?? 500
  const maxDelayMs = options.maxDelayMs ?? 30_000
  const logger = options.logger ?? getLogger('providers')
  const sleep = options.sleep ?? sleepWithSignal
  const random = options.random ?? Math.random

  const backoffDelay = (attempt: number, failure: CharpipeError) => {
    if (failure.retryAfterSeconds !== undefined) return Math.min(maxDelayMs, failure.retryAfterSeconds * 1000)
    const exponential = baseDelayMs * 2 ** attempt
    // Full jitter in the upper half, so retries from many turns do not arrive in step.
    return Math.min(maxDelayMs, Math.round(exponential / 2 + (random() * exponential) / 2))
  }

  const provider: ResilientProvider = {
    name: options.primary.name,
    model: options.primary.model,
    chat: (request, chatOptions) => collectChatResult(provider.streamChat(request, chatOptions)),
    close() {
      for (const provider of providers) (provider as ChatProvider & { close?: () => void }).close?.()
    },
    streamChat(request: ChatRequest, streamOptions: StreamChatOptions = {}): AsyncIterable<ProviderEvent> {
      const { signal } = streamOptions
      const abortedBy = (error: unknown, failure: CharpipeError) =>
        failure.code === 'aborted' ? failure : new AbortedError('the request was aborted', { cause: error })
      // Once an event has been passed on, the stream is the provider's own: its items go through
      // untouched (this is the per-chunk path) and a failure is final.
      let streaming: AsyncIterator<ProviderEvent> | undefined
      let stopped = false
      const finalFailure = (error: unknown): never => {
        const failure = toCharpipeError(error)
        throw signal?.aborted ? abortedBy(error, failure) : failure
      }

      const firstEvent = async (): Promise<IteratorResult<ProviderEvent>> => {
        let lastFailure: CharpipeError | undefined
        for (let position = 0; position < providers.length; position++) {
          const provider = providers[position]!
          for (let attempt = 0; ; attempt++) {
            const iterator = provider.streamChat(request, streamOptions)[Symbol.asyncIterator]()
            try {
              const first = await iterator.next()
              streaming = iterator
              if (stopped) void iterator.return?.()
              return first
            } catch (error) {
              const failure = toCharpipeError(error)
              if (signal?.aborted || failure.code === 'aborted') throw abortedBy(error, failure)
              lastFailure = failure
              if (!failure.isRetryable || attempt >= maxRetries) break
              const delay = backoffDelay(attempt, failure)
              logger.warn(
                {
                  provider: provider.name,
                  code: failure.code,
                  status: failure.status,
                  attempt: attempt + 1,
                  delayMs: delay,
                },
                `retrying ${provider.name} in ${delay} ms after ${failure.code}`,
              )
              await sleep(delay, signal)
            }
          }
          const next = providers[position + 1]
          if (next) {
            logger.warn(
              { provider: provider.name, fallback: next.name, code: lastFailure?.code },
              `${provider.name} failed before its first chunk; falling back to ${next.name}`,
            )
          }
        }
        throw lastFailure ?? new CharpipeError('internal', 'no provider to call')
      }

      const iterator: AsyncIterator<ProviderEvent> = {
        next: () => (streaming ? streaming.next().then(undefined, finalFailure) : firstEvent()),
        return: async () => {
          stopped = true
          await streaming?.return?.()
          return { value: undefined, done: true }
        },
      }
      return { [Symbol.asyncIterator]: () => iterator }
    },
  }
  return provider
}
