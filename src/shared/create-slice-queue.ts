/**
 * Background work cut into short synchronous slices (a text segmented ahead, a memory's write),
 * queued across all its callers and run in the event loop's check phase (`setImmediate`), a few at
 * a time. One `setImmediate` per slice, as before, let 200 sessions writing their memories at once
 * run 200 slices in one turn of the loop: hundreds of milliseconds in which no frame was read and
 * no interrupt heard. Here a turn of the loop runs queued slices for at most half as long as the
 * rest of the loop took since the last such phase (between `minPhaseMs` and `maxPhaseMs`, and
 * always at least one slice): alone, the work runs at full speed; beside a busy loop it takes
 * about a third of it, and the frames and chunks that arrived meanwhile are read in between.
 * A turn that is starting holds the queue (`hold`) until its first chunk: the memory write of the
 * turn before does not stand between an input and its reply. A hold delays a slice `maxHoldMs` at
 * most, so that turns starting one after another never starve the writes.
 * The queue is bounded (`maxWaiting` slices): past it, `run` refuses at once with
 * `SliceQueueFullError` (counted in `shed`) rather than letting the wait grow without end; a store
 * waiting here does not count this wait against its deadline (`addStoreDeadlines`), so this bound
 * is what keeps that wait finite.
 */

/** `run` refused a slice: the queue already held `maxWaiting` slices. */
export class SliceQueueFullError extends Error {
  constructor(readonly maxWaiting: number) {
    super(`the in-process queue of background work is full (${maxWaiting} slices waiting); the work was shed`)
    this.name = 'SliceQueueFullError'
  }
}

export interface SliceQueue {
  /** Runs `work` in a later turn of the event loop, after the slices queued before it. */
  run<Result>(work: () => Result): Promise<Result>
  /** Slices queued and not yet run. */
  readonly waiting: number
  /** Slices refused since the queue was made, because `maxWaiting` were waiting. */
  readonly shed: number
  /** Holds back the queued slices until released (at most `maxHoldMs` each); returns the release. */
  hold(): () => void
  /**
   * Milliseconds, in total since the queue was made, during which slices waited in it (queued and
   * not yet all run). A caller's deadline leaves this time out: work waiting behind the process's
   * own queue is not a store that does not answer (see `addStoreDeadlines`).
   */
  backlogMs(): number
}

/** Where the queue reads the time and sets its timer (the engine's clock; a manual one in tests). */
export interface SliceQueueClock {
  /** Milliseconds, monotonic. */
  now(): number
  setTimer(callback: () => void, delayMs: number): unknown
  clearTimer(timer: unknown): void
}

const processClock: SliceQueueClock = {
  now: () => performance.now(),
  setTimer: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
}

export interface CreateSliceQueueOptions {
  /** @default performance.now and the process's timers */
  clock?: SliceQueueClock
  /** @default 2 */
  minPhaseMs?: number
  /** @default 10 */
  maxPhaseMs?: number
  /** @default 100 */
  maxHoldMs?: number
  /** Slices that may wait; more are refused (`SliceQueueFullError`). @default 10_000 */
  maxWaiting?: number
}

interface QueuedSlice {
  run(): void
  queuedAt: number
}

export function createSliceQueue(options: CreateSliceQueueOptions = {}): SliceQueue {
  const clock = options.clock ?? processClock
  const now = () => clock.now()
  const minPhaseMs = options.minPhaseMs ?? 2
  const maxPhaseMs = options.maxPhaseMs ?? 10
  const maxHoldMs = options.maxHoldMs ?? 100
  const maxWaiting = options.maxWaiting ?? 10_000
  let shed = 0
  const waiting: QueuedSlice[] = []
  let scheduled = false
  let lastPhaseEnd = now()
  let holds = 0
  let wakeTimer: unknown
  // Backlog time: the closed stretches summed, and when the current one began.
  let backlogBefore = 0
  let backlogSince: number | undefined

  function runPhase(): void {
    scheduled = false
    const started = now()
    const heldMs = started - waiting[0]!.queuedAt
    if (holds > 0 && heldMs < maxHoldMs) {
      wakeAfter(maxHoldMs - heldMs)
      return
    }
    const budgetMs = Math.min(maxPhaseMs, Math.max(minPhaseMs, (started - lastPhaseEnd) / 2))
    do waiting.shift()!.run()
    while (waiting.length > 0 && now() - started < budgetMs)
    lastPhaseEnd = now()
    if (waiting.length === 0 && backlogSince !== undefined) {
      backlogBefore += lastPhaseEnd - backlogSince
      backlogSince = undefined
    }
    schedulePhase()
  }

  /** A held queue runs anyway once its oldest slice has waited `maxHoldMs`. */
  function wakeAfter(delayMs: number): void {
    wakeTimer ??= clock.setTimer(() => {
      wakeTimer = undefined
      schedulePhase()
    }, delayMs)
  }

  function schedulePhase(): void {
    if (scheduled || waiting.length === 0) return
    scheduled = true
    setImmediate(runPhase)
  }

  return {
    run(work) {
      return new Promise((resolve, reject) => {
        if (waiting.length >= maxWaiting) {
          shed++
          reject(new SliceQueueFullError(maxWaiting))
          return
        }
        const run = () => {
          try {
            resolve(work())
          } catch (error) {
            reject(error)
          }
        }
        const queuedAt = now()
        backlogSince ??= queuedAt
        waiting.push({ run, queuedAt })
        schedulePhase()
      })
    },
    get waiting() {
      return waiting.length
    },
    get shed() {
      return shed
    },
    backlogMs() {
      return backlogBefore + (backlogSince === undefined ? 0 : now() - backlogSince)
    },
    hold() {
      holds++
      let released = false
      return () => {
        if (released) return
        released = true
        holds--
        if (holds > 0) return
        if (wakeTimer !== undefined) clock.clearTimer(wakeTimer)
        wakeTimer = undefined
        schedulePhase()
      }
    },
  }
}
