/**
 * One write's commit, decided once in this process. The store asks the gate just before it sends
 * its commit (PostgreSQL's COMMIT, Redis' script); the caller that gave up on the write (it failed,
 * or the deadline around the call passed) closes it. Whichever comes first wins, so a write its
 * caller found short of its commit can never commit later: it is certainly not stored, whichever
 * deadline fired first, and no read-back is needed. After its commit was sent, only the store can
 * say (`HistoryStore.settleTurn`).
 */
import type { CommitGate } from './types.js'

/** How far a write had got when its caller gave up on it. */
export type CommitReach =
  /** Its commit was not sent, and now never will be. */
  | 'not_sent'
  /** Its commit was sent: it may have landed. */
  | 'sent'
  /** The store does not use the gate (or had not said so yet): only a read-back can tell. */
  | 'unknown'

export interface CommitGateControl {
  /** Handed to the store with the write (`AppendTurnOptions.commitGate`). */
  gate: CommitGate
  /** Gives up on the write: unless its commit was sent already, it never will be. */
  close(): CommitReach
}

export function createCommitGate(): CommitGateControl {
  let watched = false
  let state: 'open' | 'sent' | 'closed' = 'open'
  return {
    gate: {
      watch() {
        watched = true
      },
      mayCommit() {
        if (state === 'closed') return false
        state = 'sent'
        return true
      },
    },
    close() {
      if (state === 'sent') return 'sent'
      state = 'closed'
      return watched ? 'not_sent' : 'unknown'
    },
  }
}
