/**
 * Work the engine does after a turn has ended (fact extraction for long-term memory), off the
 * turn's path so that it never delays `llm_done` or the session's next turn. Tasks with the same key
 * run one after another, so that the extractions of one session see each other's results; `drain`
 * waits for everything scheduled (the engine closing), and `closing` tells the tasks that wait to
 * try again (a store away) that it has begun.
 */
import type { Logger } from '../shared/logger.js'

export interface BackgroundWork {
  /** Runs `task` after the earlier tasks of `key`. A task's failure is logged, never thrown. */
  schedule(key: string, task: () => Promise<void>): void
  /** Resolves once every task scheduled so far, and any they schedule, has finished. */
  drain(): Promise<void>
  /** Tasks scheduled and not finished. */
  readonly pending: number
  /** Aborted once `drain` is first called: a task retrying a store that is away stops soon after. */
  readonly closing: AbortSignal
}

export function createBackgroundWork(logger: Logger): BackgroundWork {
  const tails = new Map<string, Promise<void>>()
  const running = new Set<Promise<void>>()
  const closing = new AbortController()

  return {
    schedule(key, task) {
      const previous = tails.get(key) ?? Promise.resolve()
      const next: Promise<void> = previous
        .then(task)
        .catch((error) => logger.error({ err: error, key }, 'background work failed'))
        .finally(() => {
          running.delete(next)
          if (tails.get(key) === next) tails.delete(key)
        })
      tails.set(key, next)
      running.add(next)
    },
    async drain() {
      closing.abort()
      while (running.size > 0) await Promise.all([...running])
    },
    get pending() {
      return running.size
    },
    closing: closing.signal,
  }
}
