/**
 * Turn starts spread over turns of the event loop. A turn's start (its history, its recall, the
 * model request: about a millisecond of synchronous work) runs right after the input that asked for
 * it is read. When many inputs come in one turn of the loop (hundreds of sessions whose replies
 * ended together), their starts ran back to back for 50–100 ms, and no frame was read meanwhile: an
 * interrupt waited for all of them. Here the starts of one turn of the loop go on for `budgetMs` at
 * most from the first; the later ones wait in order and go in the loop's check phase, each after
 * the one before has done its synchronous work, again for `budgetMs`, and the rest in the next turn.
 * A quiet server never waits here: a start alone in its turn of the loop goes at once.
 *
 * Real timers and the real clock of `node:timers` and `node:perf_hooks`: the pacing is about the
 * event loop, which a test's fake timers do not run.
 */
import { performance } from 'node:perf_hooks'
import { setImmediate } from 'node:timers'

export interface TurnStartPacer {
  /**
   * Undefined when the turn may start now; else a promise that resolves when it may, in a later
   * phase of the loop, or at once when `signal` aborts (the turn then ends as an interrupted one).
   */
  enter(signal?: AbortSignal): Promise<void> | undefined
  /** Starts waiting now. */
  readonly waiting: number
}

export interface CreateTurnStartPacerOptions {
  /** Milliseconds of turn starts in one turn of the loop, from the first. @default 8 */
  budgetMs?: number
  /** @default performance.now */
  now?: () => number
}

/** Every turn starts at once (an engine whose caller drives time). */
export const unpacedTurnStarts: TurnStartPacer = { enter: () => undefined, waiting: 0 }

interface WaitingStart {
  release: () => void
  done: boolean
}

export function createTurnStartPacer(options: CreateTurnStartPacerOptions = {}): TurnStartPacer {
  const budgetMs = options.budgetMs ?? 8
  const now = options.now ?? (() => performance.now())
  // When this turn of the loop's first start went; undefined from the loop's next check phase on.
  let windowStart: number | undefined
  let resetScheduled = false
  const queue: WaitingStart[] = []
  let head = 0

  const hasRoom = () => windowStart === undefined || now() - windowStart < budgetMs
  const resetSoon = () => {
    if (resetScheduled) return
    resetScheduled = true
    setImmediate(() => {
      resetScheduled = false
      windowStart = undefined
    })
  }
  const admit = () => {
    windowStart ??= now()
    resetSoon()
  }
  const firstWaiting = (): WaitingStart | undefined => {
    while (head < queue.length && queue[head]!.done) head++
    if (head === queue.length) {
      queue.length = 0
      head = 0
      return undefined
    }
    return queue[head]
  }
  /** One immediate per waiting start: each runs after the one before it and its microtasks. */
  function releaseNext(): void {
    const next = firstWaiting()
    if (!next) return
    if (!hasRoom()) {
      setImmediate(releaseNext)
      return
    }
    admit()
    next.done = true
    head++
    next.release()
  }

  return {
    enter(signal) {
      if (firstWaiting() === undefined && hasRoom()) {
        admit()
        return undefined
      }
      return new Promise<void>((resolve) => {
        const onAbort = () => {
          if (start.done) return
          start.done = true
          resolve()
        }
        const start: WaitingStart = {
          done: false,
          release: () => {
            signal?.removeEventListener('abort', onAbort)
            resolve()
          },
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        queue.push(start)
        resetSoon()
        setImmediate(releaseNext)
      })
    },
    get waiting() {
      let count = 0
      for (let index = head; index < queue.length; index++) if (!queue[index]!.done) count++
      return count
    },
  }
}
