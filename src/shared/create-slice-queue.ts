/**
 * Background work cut into short synchronous slices (a text segmented ahead, a memory's write),
 * queued across all its callers and run in the event loop's check phase (`setImmediate`), a few at
 * a time. One `setImmediate` per slice, as before, let 200 sessions writing their memories at once
 * run 200 slices in one turn of the loop: hundreds of milliseconds in which no frame was read and
 * no interrupt heard. Here a turn of the loop runs queued slices for at most half as long as the
 * rest of the loop took since the last such phase (between `minPhaseMs` and `maxPhaseMs`, and
 * always at least one slice): alone, the work runs at full speed; beside a busy loop it takes
 * about a third of it, and the frames and chunks that arrived meanwhile are read in between.
 */

export interface SliceQueue {
  /** Runs `work` in a later turn of the event loop, after the slices queued before it. */
  run<Result>(work: () => Result): Promise<Result>
  /** Slices queued and not yet run. */
  readonly waiting: number
}

export interface CreateSliceQueueOptions {
  /** Milliseconds, monotonic. @default performance.now */
  now?: () => number
  /** @default 2 */
  minPhaseMs?: number
  /** @default 10 */
  maxPhaseMs?: number
}

export function createSliceQueue(options: CreateSliceQueueOptions = {}): SliceQueue {
  const now = options.now ?? (() => performance.now())
  const minPhaseMs = options.minPhaseMs ?? 2
  const maxPhaseMs = options.maxPhaseMs ?? 10
  const waiting: (() => void)[] = []
  let scheduled = false
  let lastPhaseEnd = now()

  function runPhase(): void {
    scheduled = false
    const started = now()
    const budgetMs = Math.min(maxPhaseMs, Math.max(minPhaseMs, (started - lastPhaseEnd) / 2))
    do waiting.shift()!()
    while (waiting.length > 0 && now() - started < budgetMs)
    lastPhaseEnd = now()
    schedulePhase()
  }

  function schedulePhase(): void {
    if (scheduled || waiting.length === 0) return
    scheduled = true
    setImmediate(runPhase)
  }

  return {
    run(work) {
      return new Promise((resolve, reject) => {
        waiting.push(() => {
          try {
            resolve(work())
          } catch (error) {
            reject(error)
          }
        })
        schedulePhase()
      })
    },
    get waiting() {
      return waiting.length
    },
  }
}
