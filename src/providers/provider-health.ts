/**
 * What the resilient provider remembers between requests about its providers (a circuit breaker
 * each): a provider that failed or stayed silent before its first event is skipped until its
 * cooldown has passed; then one probe at a time runs in the background with the request at hand,
 * dropped after its first event, and a probe that answers makes the provider first again. Without
 * fallbacks nothing is ever skipped: the one provider is the only way to answer.
 */
import type { Logger } from '../shared/logger.js'
import type { ChatProvider, ChatRequest } from './types.js'

export interface CreateProviderHealthOptions {
  /** Primary first, then the fallbacks, as the resilient provider tries them. */
  providers: readonly ChatProvider[]
  now: () => number
  cooldownMs: number
  /** Per provider: the longest wait for a probe's first event. */
  firstChunkTimeoutsMs: readonly (number | undefined)[]
  logger: Logger
}

export interface ProviderHealth {
  /** Positions to try, healthy ones first in their order, skipped ones after; starts due probes. */
  order(request: ChatRequest): number[]
  failed(position: number): void
  succeeded(position: number): void
  /** Stops running probes. */
  close(): void
}

interface ProviderState {
  /** Skipped until then (0: healthy). */
  skippedUntil: number
  probe?: AbortController
}

/** A probe's wait when its provider has no first-chunk budget. */
const defaultProbeTimeoutMs = 30_000

export function createProviderHealth(options: CreateProviderHealthOptions): ProviderHealth {
  const { providers, now, cooldownMs, logger } = options
  const states: ProviderState[] = providers.map(() => ({ skippedUntil: 0 }))
  const keepsHealth = providers.length > 1

  const markFailed = (position: number) => {
    states[position]!.skippedUntil = now() + cooldownMs
  }

  const probe = async (position: number, request: ChatRequest) => {
    const provider = providers[position]!
    const state = states[position]!
    const controller = new AbortController()
    state.probe = controller
    const budgetMs = options.firstChunkTimeoutsMs[position] ?? defaultProbeTimeoutMs
    const timer = setTimeout(() => controller.abort('probe-timeout'), budgetMs)
    const iterator = provider.streamChat(request, { signal: controller.signal })[Symbol.asyncIterator]()
    try {
      const stopped = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(new Error('the probe got no first event')), {
          once: true,
        }),
      )
      await Promise.race([iterator.next(), stopped])
      if (state.probe !== controller) return
      state.skippedUntil = 0
      logger.info({ provider: provider.name }, `${provider.name} answers again; it is tried first again`)
    } catch (error) {
      if (state.probe !== controller) return
      markFailed(position)
      logger.debug({ provider: provider.name, err: error }, `${provider.name} is still failing`)
    } finally {
      clearTimeout(timer)
      if (state.probe === controller) state.probe = undefined
      controller.abort('probe-done')
      void Promise.resolve(iterator.return?.()).catch(() => {})
    }
  }

  return {
    order(request) {
      if (!keepsHealth) return providers.map((_, position) => position)
      const time = now()
      const healthy: number[] = []
      const skipped: number[] = []
      states.forEach((state, position) => {
        if (state.skippedUntil <= 0) {
          healthy.push(position)
          return
        }
        skipped.push(position)
        if (state.skippedUntil <= time && !state.probe) void probe(position, request)
      })
      return [...healthy, ...skipped]
    },
    failed(position) {
      if (!keepsHealth) return
      markFailed(position)
      logger.warn(
        { provider: providers[position]!.name, cooldownMs },
        `${providers[position]!.name} is skipped for ${cooldownMs} ms, then probed in the background`,
      )
    },
    succeeded(position) {
      states[position]!.skippedUntil = 0
    },
    close() {
      for (const state of states) state.probe?.abort('closed')
    },
  }
}
