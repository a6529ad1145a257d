/**
 * The runner's write of a finished turn: stored through persist-turn.ts, in a cluster only while the
 * session's lock is still this turn's, and not at all when reading the history already found the
 * store down. An interrupt while writing returns at once; the write goes on, and the caller reports
 * how it ended after `llm_done` (see `reportTurnNotStored`).
 */
import type { TurnLease } from '../../cluster/turn-coordinator.js'
import type { StoreUnavailableError } from '../../shared/errors.js'
import type { Logger } from '../../shared/logger.js'
import { raceAbort } from '../abortable.js'
import { notStored, type TurnWriteResult } from '../confirm-turn-write.js'
import { type PersistTurnOptions, storeTurn } from '../persist-turn.js'

export interface WriteTurnOptions {
  persist: PersistTurnOptions
  /** The session's lock across servers, when the turn holds one. */
  lease: TurnLease | undefined
  /** The turn's signal: an interrupt stops waiting for the write (not the write). */
  signal: AbortSignal
  logger: Logger
}

export interface WriteTurnResult {
  /** How the write ended; undefined when it was not tried or an interrupt stopped the wait. */
  written: TurnWriteResult | undefined
  /** The write itself, when one was started (it may end after the turn has closed). */
  pending: Promise<TurnWriteResult> | undefined
}

/**
 * Stores the turn, unless reading the history already found the store down (one deadline per turn
 * is enough: the turn was not run, and the user hears about it now, not a second deadline later).
 */
export async function writeTurn(options: WriteTurnOptions): Promise<WriteTurnResult> {
  const { persist } = options
  const failure = persist.outcome.error
  if (failure?.code === 'store_unavailable' && (failure as StoreUnavailableError).store === 'history') {
    options.logger.warn(
      { session: persist.input.session, turn: persist.turn, characters: persist.input.text.length },
      'the turn was not stored: the history store is unavailable',
    )
    return { written: undefined, pending: undefined }
  }
  const pending = options.lease ? storeIfLeaseHeld(persist, options.lease) : storeTurn(persist)
  try {
    return { written: await raceAbort(pending, options.signal), pending }
  } catch {
    return { written: undefined, pending }
  }
}

/**
 * In a cluster the turn is stored only while its lock is still its own (the check extends the lock
 * over the write): once the lock expired and another server took the session, this turn is late and
 * storing it would put it after, or beside, the turns that followed.
 */
async function storeIfLeaseHeld(persist: PersistTurnOptions, lease: TurnLease): Promise<TurnWriteResult> {
  let held: boolean
  try {
    held = await lease.confirm()
  } catch (error) {
    // The lock could not be checked: nothing was written.
    return notStored(error instanceof Error ? error.message : String(error), error)
  }
  if (held) return storeTurn({ ...persist, fence: lease.fence })
  persist.logger.warn(
    { session: persist.input.session, turn: persist.turn, fence: lease.fence },
    'the turn was not stored: its lock moved to another server',
  )
  return notStored('it outlived its lock (cluster.lease_ms) and the session moved on')
}
