/**
 * Every call to a history or memory store gets a deadline, and every failure of the back end becomes
 * a `StoreUnavailableError` (`store_unavailable`). A store that stops answering (a frozen server, a
 * network partition) then costs a turn at most the deadline instead of holding it, its session's
 * lane and the shutdown forever. The late answer of a call that missed its deadline is dropped (the
 * clients bound their own waits too, so it does not pile up: see the Redis and PostgreSQL stores).
 *
 * Bad input (`bad_request`) passes through unchanged: it is the caller's fault, not the store's.
 *
 * A store whose work runs in this process (SQLite) queues it behind the other sessions' work
 * (`SliceQueue`): under load a write may wait seconds for its turn while the store itself is
 * healthy. Given that queue (`queue`), a deadline counts only the time during which the queue had
 * nothing waiting: a call is late when the store had its chance and did not answer, not when the
 * process was busy. The queue's own bound (`maxWaiting`) keeps that wait finite.
 */
import { createMonotonicClock } from '../shared/create-monotonic-clock.js'
import { CharpipeError, StoreUnavailableError } from '../shared/errors.js'
import { getLogger, type Logger, scrubSecrets } from '../shared/logger.js'
import { recordStoreFailure } from './store-failures.js'

export interface AddStoreDeadlinesOptions {
  /** `history` or `memory`: named in errors and metrics. */
  store: string
  /** The back end (`sqlite`, `redis`, `postgres`, `memory`). */
  backend: string
  /** Longest wait for one call, in milliseconds. */
  timeoutMs: number
  /** Methods whose failures are typed but whose time is not bounded (a whole knowledge document). */
  unbounded?: readonly string[]
  /**
   * Longer deadlines of their own, in milliseconds, by method: writes that embed their text first
   * (a turn's memory) may take the embeddings request's time on top of the store's.
   */
  longer?: Readonly<Record<string, number>>
  /** The in-process queue the store's work waits in: its backlog time does not count. */
  queue?: { backlogMs(): number }
  /** @default performance.now and the process's timers (unref'd) */
  clock?: DeadlineClock
  logger?: Logger
}

/** Where deadlines read the time and set their timers (a manual clock in tests). */
export interface DeadlineClock {
  /** Milliseconds, monotonic. */
  now(): number
  setTimer(callback: () => void, delayMs: number): unknown
  clearTimer(timer: unknown): void
}

const processClock: DeadlineClock = createMonotonicClock()

function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return scrubSecrets(message || 'unknown failure')
}

function isPassedThrough(error: unknown): boolean {
  return (
    CharpipeError.isInstance(error) && (error.code === 'bad_request' || error.code === 'store_unavailable')
  )
}

/**
 * Wraps each method of `target` (its own function-valued properties). `close()` is bounded too, but
 * never fails: a store that cannot say goodbye must not stop the process from ending.
 */
export function addStoreDeadlines<T extends object>(target: T, options: AddStoreDeadlinesOptions): T {
  const logger = options.logger ?? getLogger(options.store)
  const where = `the ${options.store} store (${options.backend})`
  const wrapped: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== 'function') {
      wrapped[name] = value
      continue
    }
    const method = value as (...args: unknown[]) => unknown
    wrapped[name] =
      name === 'close'
        ? () => closeWithin(() => method.apply(target, []), where, options.timeoutMs, logger)
        : (...args: unknown[]) =>
            callWithin(
              () => method.apply(target, args),
              name,
              where,
              options,
              logger,
              !options.unbounded?.includes(name),
            )
  }
  return wrapped as T
}

function callWithin(
  call: () => unknown,
  operation: string,
  where: string,
  options: AddStoreDeadlinesOptions,
  logger: Logger,
  bounded: boolean,
): Promise<unknown> {
  const timeoutMs = options.longer?.[operation] ?? options.timeoutMs
  const toUnavailable = (error: unknown, timedOut: boolean) => {
    recordStoreFailure({ store: options.store, backend: options.backend, operation, timedOut })
    logger.warn({ operation, timedOut, err: describeFailure(error) }, `${where} failed`)
    return new StoreUnavailableError(
      timedOut
        ? `${where} did not answer within ${timeoutMs} ms (${operation})`
        : `${where} is unavailable (${operation}): ${describeFailure(error)}`,
      { store: options.store, timedOut, cause: error },
    )
  }
  let pending: Promise<unknown>
  try {
    pending = Promise.resolve(call())
  } catch (error) {
    return Promise.reject(isPassedThrough(error) ? error : toUnavailable(error, false))
  }
  const clock = options.clock ?? processClock
  const queue = options.queue
  const started = clock.now()
  const backlogAtStart = queue?.backlogMs() ?? 0
  let timer: unknown
  const deadline = new Promise<never>((_resolve, reject) => {
    if (!bounded) return
    // Fires when the deadline would be due if no time had been backlog; then counts again.
    const check = () => {
      timer = undefined
      const backlog = queue ? queue.backlogMs() - backlogAtStart : 0
      const counted = clock.now() - started - backlog
      if (counted >= timeoutMs) return reject(missedDeadline)
      timer = clock.setTimer(check, timeoutMs - counted)
    }
    timer = clock.setTimer(check, timeoutMs)
  })
  const clearDeadline = () => {
    if (timer !== undefined) clock.clearTimer(timer)
    timer = undefined
  }
  return Promise.race([pending, deadline]).then(
    (value) => {
      clearDeadline()
      return value
    },
    (error: unknown) => {
      clearDeadline()
      if (error === missedDeadline) {
        // The call may still settle; its result is no longer wanted.
        pending.catch((late: unknown) =>
          logger.debug(
            { operation, err: describeFailure(late) },
            `${where}: late failure after the deadline`,
          ),
        )
        throw toUnavailable(new Error(`no answer within ${timeoutMs} ms`), true)
      }
      throw isPassedThrough(error) ? error : toUnavailable(error, false)
    },
  )
}

// The deadline's own rejection reason: no store can throw this object.
const missedDeadline = Symbol('missed deadline')

async function closeWithin(call: () => unknown, where: string, timeoutMs: number, logger: Logger) {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs)
    timer.unref?.()
  })
  try {
    const pending = Promise.resolve(call())
    const result = await Promise.race([pending.then(() => 'closed' as const), deadline])
    if (result === 'late') {
      pending.catch(() => {})
      logger.warn(`${where} did not close within ${timeoutMs} ms; leaving it`)
    }
  } catch (error) {
    logger.warn({ err: describeFailure(error) }, `closing ${where} failed`)
  } finally {
    clearTimeout(timer)
  }
}
