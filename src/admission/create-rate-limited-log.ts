/**
 * A warning that a flood could repeat without end (a malformed frame, a refused chat message) is
 * written at most once per interval per kind; the next line says how many were left out, so a
 * flood costs a line per interval, not a line per message.
 */
import type { Logger } from '../shared/logger.js'

export interface RateLimitedLog {
  warn(kind: string, fields: Record<string, unknown>, message: string): void
}

export interface CreateRateLimitedLogOptions {
  logger: Logger
  /** @default 10_000 */
  intervalMs?: number
  /** @default Date.now */
  now?: () => number
}

const maxKinds = 1000

export function createRateLimitedLog(options: CreateRateLimitedLogOptions): RateLimitedLog {
  const intervalMs = options.intervalMs ?? 10_000
  const now = options.now ?? Date.now
  const kinds = new Map<string, { loggedAt: number; suppressed: number }>()
  return {
    warn(kind, fields, message) {
      const time = now()
      const state = kinds.get(kind)
      if (state && time - state.loggedAt < intervalMs) {
        state.suppressed++
        return
      }
      if (!state && kinds.size >= maxKinds) kinds.clear()
      const suppressed = state?.suppressed ?? 0
      kinds.set(kind, { loggedAt: time, suppressed: 0 })
      options.logger.warn(suppressed > 0 ? { ...fields, suppressed } : fields, message)
    },
  }
}
