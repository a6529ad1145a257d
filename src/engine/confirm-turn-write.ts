/**
 * What became of a turn write that failed or missed its deadline, decided before the client is
 * told. A write to PostgreSQL or Redis that missed its deadline may still be on its way (a frozen
 * server holds it in its buffer), but it refuses itself once the deadline has passed on the server
 * (see `AppendTurnOptions.deadline`); so after the deadline, reading the turn back by its id is the
 * truth: found, it is stored; not found, it never will be. Only when that read fails too is the
 * outcome unknown, and the client is asked to send the input again with the same id (the resend is
 * the same turn, stored at most once).
 */
import type { ConversationScope, HistoryStore } from '../memory/types.js'
import { isWriteNotApplied } from '../memory/write-not-applied.js'
import { CharpipeError } from '../shared/errors.js'

export type TurnWriteStatus = 'stored' | 'not_stored' | 'unknown'

export interface TurnWriteResult {
  status: TurnWriteStatus
  /** Why it is not stored, or why it cannot be known (`store_unavailable`, `store_outcome_unknown`). */
  error?: CharpipeError
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
}

// Beyond the deadline before the read: the server's clock and ours are not exactly in step.
const clockMarginMs = 50

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
  if (isRefusal(failure) || isWriteNotApplied(failure)) return notStored(reasonOf(failure), failure)
  const isStored = async () => (await options.store.findTurn(options.scope, options.turn)).length > 0
  try {
    // Found at once: stored, whatever the error said. Not found: it may still land until the
    // deadline, after which the answer is final.
    if (await isStored()) return { status: 'stored' }
    const wait = options.deadline + clockMarginMs - Date.now()
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, wait))
      if (await isStored()) return { status: 'stored' }
    }
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
    return { status: 'unknown', error }
  }
}
