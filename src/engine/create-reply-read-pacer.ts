/**
 * Model replies' network reads visited within one share of each turn of the event loop, for all the
 * turns that stream at once. A read's visit (the reply stages, the turn's events, its frames) runs
 * as a promise callback right after the read, so a loop that handles many sockets' reads in one
 * poll phase visits them all before it reads anything else: with 200 sessions streaming, an
 * `interrupt` frame waited 70–170 ms for the loop to come round. Here the visits of one turn of the
 * loop go on until they have spent `budgetMs` together; the reads that come after wait, in order,
 * for the loop's check phase, which renews the share and visits them until it is spent again; the
 * rest wait for the next turn of the loop, after its poll phase has read the frames that came
 * meanwhile. A quiet server never waits here: a turn of the loop with a few reads stays well under
 * the share. Each waiting read is a callback of its own in the check phase, its promise callbacks
 * run after it: visiting all the waiting reads from one callback instead raised the median
 * interrupt time of the stress bench by 8–10 ms.
 *
 * The share counts the visits, and the decoding of a read that was ready at once (from the visit
 * before it); a visit is never cut here (a reply's own long stretch is, in `forEachUntilAborted`).
 * Real `setImmediate`, as the turn start pacer: the pacing is about the event loop, which an engine
 * whose caller drives time does not wait on (`unpacedReplyReads`).
 */
import { setImmediate } from 'node:timers'

export interface ReplyReadPacer {
  /** Whether this turn of the loop's share has room for another visit. */
  hasRoom(): boolean
  /**
   * Calls `visit` in the loop's check phase, after the share is renewed there; `visit` asks
   * `hasRoom` again, and waits for the next turn of the loop when the visits before it spent it.
   */
  later(visit: () => void): void
  /** Counts `ms` of visiting against this turn of the loop's share. */
  spend(ms: number): void
}

export interface CreateReplyReadPacerOptions {
  /** Milliseconds of visits in one turn of the loop, all replies together. @default 4 */
  budgetMs?: number
}

/** Every read is visited at once (an engine whose caller drives time). */
export const unpacedReplyReads: ReplyReadPacer = {
  hasRoom: () => true,
  later: (visit) => visit(),
  spend: () => {},
}

export function createReplyReadPacer(options: CreateReplyReadPacerOptions = {}): ReplyReadPacer {
  const budgetMs = options.budgetMs ?? 4
  let spent = 0
  let renewalQueued = false
  const renew = () => {
    renewalQueued = false
    spent = 0
  }
  // Queued before any visit that waits, so the check phase renews the share before it visits; a
  // quiet loop, which spends nothing, queues nothing.
  const queueRenewal = () => {
    if (renewalQueued) return
    renewalQueued = true
    setImmediate(renew)
  }
  return {
    hasRoom: () => spent < budgetMs,
    later(visit) {
      queueRenewal()
      setImmediate(visit)
    },
    spend(ms) {
      spent += ms
      queueRenewal()
    },
  }
}
