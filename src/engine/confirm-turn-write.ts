/**
 * What became of a turn write that failed or missed its deadline, decided before the client is
 * told, by one rule whatever the delays. A write given up on before its commit was sent (its
 * commit gate: see `createCommitGate`), or one the store knows it did not apply, is not stored,
 * whichever deadline fired first, and nothing is read back. Otherwise a write bound by a deadline
 * refuses itself once the deadline has passed on the store's clock (see
 * `AppendTurnOptions.deadline`), so after it, and after any write of the session still running has
 * committed or rolled back, reading the turn back by its id is the truth
 * (`HistoryStore.settleTurn`: PostgreSQL waits on the write's lock, Redis runs one script at a
 * time). Found, it is stored; not found, it never will be. Only when that read fails too is the
 * outcome unknown, and the client is asked to send the input again with the same id (the resend is
 * the same turn, stored at most once).
 */
import type { CommitGateControl } from '../memory/commit-gate.js'
import { hasStoredTurn } from '../memory/history/has-stored-turn.js'
import type { ConversationScope, HistoryStore } from '../memory/types.js'
import { isWriteNotApplied } from '../memory/write-not-applied.js'
import { CharpipeError } from '../shared/errors.js'

export type TurnWriteStatus = 'stored' | 'not_stored' | 'unknown'

export interface TurnWriteResult {
  status: TurnWriteStatus
  /** Why it is not stored, or why it cannot be known (`store_unavailable`, `store_outcome_unknown`). */
  error?: CharpipeError
  /**
   * With `unknown`: the write's deadline (ms since the epoch). The write may still be running in the
   * store, and land, until `HistoryStore.settleTurn` with this deadline has answered.
   */
  deadline?: number
}

export interface ConfirmTurnWriteOptions {
  store: HistoryStore
  scope: ConversationScope
  turn: string
  /** The write's deadline (ms since the epoch): the read waits for it to pass. */
  deadline: number
  /** Why the write failed. */
  failure: unknown
  /** The input's id, for the message asking to resend. */
  inputId?: string | undefined
  /** The write's commit gate (`AppendTurnOptions.commitGate`): closed here, as the write is given up. */
  commit?: CommitGateControl
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The store refused the write itself (bad input, a stale cluster fence): nothing was written. */
function isRefusal(error: unknown): boolean {
  if (!CharpipeError.isInstance(error)) return false
  if (error.code === 'bad_request') return true
  return error.code === 'store_unavailable' && (error as { store?: string }).store === 'cluster'
}

export function notStored(reason: string, cause?: unknown): TurnWriteResult {
  const error = new CharpipeError('store_unavailable', `the turn was not stored: ${reason}`, { cause })
  return { status: 'not_stored', error }
}

export async function confirmTurnWrite(options: ConfirmTurnWriteOptions): Promise<TurnWriteResult> {
  const { failure } = options
  // From here the write cannot commit unless its commit was already on its way.
  const reach = options.commit?.close() ?? 'unknown'
  if (reach === 'not_sent' || isRefusal(failure) || isWriteNotApplied(failure))
    return notStored(reasonOf(failure), failure)
  const { store, scope, turn, deadline } = options
  const isStored = () => hasStoredTurn(store, scope, turn)
  try {
    // Found at once: stored, whatever the error said. Not found: it may still land until the
    // deadline, after which the answer is final.
    if (await isStored()) return { status: 'stored' }
    const wait = deadline - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    // The store's own clock and its own locks decide (a local store has nothing in flight).
    const stored = store.settleTurn ? await store.settleTurn(scope, turn, deadline) : await isStored()
    if (stored) return { status: 'stored' }
    return notStored(reasonOf(failure), failure)
  } catch (readError) {
    const resend = options.inputId
      ? `send the input again with the same id (${JSON.stringify(options.inputId)})`
      : 'send inputs with an id to resend them safely'
    const error = new CharpipeError(
      'store_outcome_unknown',
      `whether the turn was stored is not known (${reasonOf(failure)}; reading it back: ${reasonOf(readError)}); ${resend}`,
      { cause: failure },
    )
    return { status: 'unknown', error, deadline }
  }
}
