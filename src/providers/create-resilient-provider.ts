/**
 * The one retry loop (SPEC R1.5): a primary provider and its fallbacks behind one `ChatProvider`.
 * Before the first event is passed on, a retryable failure (network, 408, 409, 429, 5xx) is retried
 * with exponential backoff and jitter, honouring `Retry-After`; once the retries are used up, or for
 * a failure that retrying cannot fix, the next fallback is tried. Once an event has been passed on, a
 * failure is final, so no text is ever repeated. A caller's abort is never retried.
 *
 * Each provider has one wait budget for its first chunk (`firstChunkTimeoutsMs`, the config's
 * `timeout_ms`) across all its attempts and backoffs, not one per attempt: a model that answers
 * headers and then nothing costs the turn `timeout_ms`, not `(max_retries + 1) × timeout_ms`. So a
 * timeout is not retried on the same provider, and a backoff (or a `Retry-After`) longer than what is
 * left of the budget goes straight to the next fallback, or ends the turn when there is none.
 *
 * With fallbacks, health is kept between requests (a circuit breaker per provider, as in LiveKit's
 * fallback adapter): a provider that failed or stayed silent before its first event is skipped for
 * `cooldownMs`, so a dead primary does not cost every turn its whole wait. After that, the next
 * request starts a probe of it in the background (the same request, dropped after its first event)
 * and is served by the others meanwhile; a probe that answers makes it first again. When every
 * provider is being skipped, all are still tried in order rather than failing the turn untried.
 */
import { AbortedError, CharpipeError, UpstreamTimeoutError } from '../shared/errors.js'
import { getLogger, type Logger } from '../shared/logger.js'
import { type ChatResult, collectChatResult } from './collect-chat-result.js'
import { createProviderHealth } from './provider-health.js'
import {
  type ChatProvider,
  type ChatRequest,
  hasEventBatches,
  type ProviderEvent,
  type ProviderEventBatches,
  type StreamChatOptions,
} from './types.js'

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
  /**
   * Per provider, in order (primary first): the longest wait for its first event across all its
   * attempts and backoffs. A missing entry: no budget (each attempt bounds itself).
   */
  firstChunkTimeoutsMs?: readonly (number | undefined)[]
  /** Clock in milliseconds (tests). @default Date.now */
  now?: () => number
  /** How long a provider that failed before its first event is skipped (with fallbacks). @default 30000 */
  cooldownMs?: number
}

/**
 * The signal one attempt runs under: the caller's, plus the provider's remaining budget until the
 * first event. `settle()` stops the budget timer once the first event is in.
 */
function createAttemptSignal(signal: AbortSignal | undefined, remainingMs: number | undefined) {
  const controller = new AbortController()
  let timedOut = false
  const onAbort = () => controller.abort(signal?.reason)
  if (signal?.aborted) controller.abort(signal.reason)
  else signal?.addEventListener('abort', onAbort, { once: true })
  const timer =
    remainingMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true
          controller.abort('first-chunk-budget')
        }, remainingMs)
  // Resolves (never rejects) when the attempt must stop waiting, so the wait cannot outlast it even
  // if the provider ignores its signal.
  const stopped = new Promise<void>((resolve) => {
    if (controller.signal.aborted) resolve()
    else controller.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  return {
    signal: controller.signal,
    stopped,
    get timedOut() {
      return timedOut
    },
    settle() {
      if (timer) clearTimeout(timer)
    },
    dispose() {
      if (timer) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    },
  }
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
  const now = options.now ?? Date.now
  const health = createProviderHealth({
    providers,
    now,
    cooldownMs: options.cooldownMs ?? 30_000,
    firstChunkTimeoutsMs: options.firstChunkTimeoutsMs ?? [],
    logger,
  })

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
      health.close()
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
      // The streaming attempt's hold on the caller's signal, let go when the stream ends: a signal
      // that outlives the stream (a socket's, a describer's timeout) must not keep its request alive.
      let releaseAttempt: (() => void) | undefined
      const finish = () => {
        releaseAttempt?.()
        releaseAttempt = undefined
      }
      const passOn = (result: IteratorResult<ProviderEvent>) => {
        if (result.done) finish()
        return result
      }
      const finalFailure = (error: unknown): never => {
        const failure = toCharpipeError(error)
        throw signal?.aborted ? abortedBy(error, failure) : failure
      }

      const firstEvent = async (): Promise<IteratorResult<ProviderEvent>> => {
        let lastFailure: CharpipeError | undefined
        const order = health.order(request)
        for (let index = 0; index < order.length; index++) {
          const position = order[index]!
          const provider = providers[position]!
          const budgetMs = options.firstChunkTimeoutsMs?.[position]
          const deadline = budgetMs === undefined ? undefined : now() + budgetMs
          for (let attempt = 0; ; attempt++) {
            const remaining = deadline === undefined ? undefined : Math.max(0, deadline - now())
            const attemptSignal = createAttemptSignal(signal, remaining)
            const iterator = provider
              .streamChat(request, { ...streamOptions, signal: attemptSignal.signal })
              [Symbol.asyncIterator]()
            try {
              const first = await Promise.race([
                iterator.next(),
                attemptSignal.stopped.then(() => {
                  throw attemptSignal.timedOut
                    ? new UpstreamTimeoutError(`no first chunk from ${provider.name} within ${budgetMs} ms`)
                    : new AbortedError('the request was aborted')
                }),
              ])
              attemptSignal.settle()
              releaseAttempt = () => attemptSignal.dispose()
              health.succeeded(position)
              streamOptions.onAnswer?.({ provider: provider.name, model: request.model ?? provider.model })
              streaming = iterator
              if (stopped) void iterator.return?.()
              return first
            } catch (error) {
              attemptSignal.dispose()
              if (attemptSignal.timedOut) void Promise.resolve(iterator.return?.()).catch(() => {})
              const failure = attemptSignal.timedOut
                ? new UpstreamTimeoutError(`no first chunk from ${provider.name} within ${budgetMs} ms`, {
                    cause: error,
                  })
                : toCharpipeError(error)
              if (signal?.aborted || failure.code === 'aborted') throw abortedBy(error, failure)
              lastFailure = failure
              // A timeout has used the provider's wait: trying it again would only wait again.
              if (!failure.isRetryable || failure.code === 'upstream_timeout' || attempt >= maxRetries) break
              const delay = backoffDelay(attempt, failure)
              const left = deadline === undefined ? undefined : deadline - now()
              // The wait the upstream asked for, uncapped: retrying before it has passed is futile.
              const asked = failure.retryAfterSeconds === undefined ? 0 : failure.retryAfterSeconds * 1000
              if (asked > maxDelayMs || (left !== undefined && Math.max(delay, asked) >= left)) {
                logger.warn(
                  {
                    provider: provider.name,
                    code: failure.code,
                    status: failure.status,
                    delayMs: delay,
                    leftMs: left,
                  },
                  `not retrying ${provider.name}: the wait before a retry is longer than its first-chunk budget allows`,
                )
                break
              }
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
          health.failed(position)
          const nextPosition = order[index + 1]
          const next = nextPosition === undefined ? undefined : providers[nextPosition]
          if (next) {
            logger.warn(
              { provider: provider.name, fallback: next.name, code: lastFailure?.code },
              `${provider.name} failed before its first chunk; falling back to ${next.name}`,
            )
          }
        }
        throw lastFailure ?? new CharpipeError('internal', 'no provider to call')
      }

      const failed = (error: unknown): never => {
        finish()
        return finalFailure(error)
      }
      const passOnBatch = (batch: readonly ProviderEvent[] | undefined) => {
        if (!batch) finish()
        return batch
      }
      const iterator: AsyncIterator<ProviderEvent> & ProviderEventBatches = {
        next: () => (streaming ? streaming.next().then(passOn, failed) : firstEvent()),
        // A batch at a time once streaming, when the provider reads that way (the built-in ones do).
        nextBatch: () => {
          if (!streaming) return firstEvent().then((first) => (first.done ? undefined : [first.value]))
          if (hasEventBatches(streaming)) return streaming.nextBatch().then(passOnBatch, failed)
          return streaming.next().then((result) => (passOn(result).done ? undefined : [result.value]), failed)
        },
        return: async () => {
          stopped = true
          try {
            await streaming?.return?.()
          } finally {
            finish()
          }
          return { value: undefined, done: true }
        },
      }
      return { [Symbol.asyncIterator]: () => iterator }
    },
  }
  return provider
}
