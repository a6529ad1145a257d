/**
 * The runner's write of a finished turn: stored through persist-turn.ts, in a cluster only while the
 * session's lock is still this turn's, and not at all when reading the history already found the
 * store down. For a reply cut short, an interrupt while writing returns at once; the write goes on,
 * and the caller reports how it ended after `llm_done` (see `reportTurnNotStored`). A complete
 * reply's write is always waited for. A turn cut before it ran is stored
 * here too, in a cluster under the session's lock taken in its input's place.
 */
import type { TurnCoordinator, TurnLease } from '../../cluster/turn-coordinator.js'
import { CharpipeError, type StoreUnavailableError } from '../../shared/errors.js'
import type { Logger } from '../../shared/logger.js'
import { raceAbort } from '../abortable.js'
import { notStored, type TurnWriteResult } from '../confirm-turn-write.js'
import { conversationScopeOf } from '../conversation-scope-of.js'
import { type PersistTurnOptions, storeTurn } from '../persist-turn.js'

export interface WriteTurnOptions {
  persist: PersistTurnOptions
  /** The session's lock across servers, when the turn holds one. */
  lease: TurnLease | undefined
  /** The turn's signal: an interrupt stops waiting for the write (not the write). None: the wait is the write's. */
  signal: AbortSignal | undefined
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
    const written = options.signal ? await raceAbort(pending, options.signal) : await pending
    return { written, pending }
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

export interface StoreAbortedBeforeLockOptions {
  persist: PersistTurnOptions
  /** Resolves when the session's previous turn here is finished. */
  previous: Promise<void>
  /** The session's lock across servers (`cluster.enabled`). */
  coordinator?: TurnCoordinator | undefined
  /** The lane's key (`laneKeyOf`): what the lock is taken for. */
  lane: string
  /** The input's number among the session's inputs in the cluster (`TurnHandle.order`). */
  order?: Promise<number> | undefined
}

/**
 * A turn cut before it could run (its outcome says why). Cancelled by an interrupt that cleared the
 * queue, it is not stored: the model never saw it, and a user line without a reply would only
 * confuse the next turns. Superseded by a newer input, or cut by a shutdown, it is stored after the
 * turn before it: the user did say it. In a cluster it takes the session's lock first, in its
 * input's place: a newer input (numbered after it) waits for it on every server, so the stored
 * turns keep the order of the inputs whatever server took them. Never throws.
 */
export async function storeAbortedBeforeLock(
  options: StoreAbortedBeforeLockOptions,
): Promise<TurnWriteResult> {
  const { persist, coordinator } = options
  if (persist.outcome.reason?.kind === 'interrupt') {
    const order = (await options.order?.catch(() => 0)) ?? 0
    if (coordinator && order > 0) await coordinator.withdrawInput(options.lane, order)
    return { status: 'not_stored' }
  }
  await options.previous
  if (!coordinator) return storeTurn(persist)
  let lease: TurnLease
  try {
    // Its own wait (lock_wait_ms), no longer the cut turn's signal.
    lease = await coordinator.acquire(options.lane, new AbortController().signal, options.order, persist.turn)
  } catch (error) {
    // A newer input took its turn first: stored now it would come after it. Final, never "resend";
    // unless another attempt of the same input stored it meanwhile.
    if (isLateInputRefusal(error)) {
      if (await isTurnStored(persist)) return { status: 'stored' }
      persist.logger.warn(
        { session: persist.input.session, turn: persist.turn },
        'a turn cut before it ran was not stored: a newer input of the session took its turn first',
      )
      return { status: 'not_stored', error }
    }
    persist.logger.warn(
      { session: persist.input.session, turn: persist.turn, err: error },
      'a turn cut before it ran was not stored: its lock could not be taken',
    )
    return notStored(
      `it was cut before it ran and its lock could not be taken (${error instanceof Error ? error.message : String(error)})`,
      error,
    )
  }
  try {
    return await storeIfLeaseHeld(persist, lease)
  } finally {
    await lease.release()
  }
}

/**
 * The cluster refused the input's turn for good: a newer input of the session took its turn first
 * (see `TurnCoordinator.acquire`).
 */
export function isLateInputRefusal(error: unknown): error is CharpipeError {
  return CharpipeError.isInstance(error) && error.code === 'interrupted_by_new_input'
}

/** Whether the turn is in the history (stored by another attempt of the same input); false when unknown. */
async function isTurnStored(persist: PersistTurnOptions): Promise<boolean> {
  const scope = conversationScopeOf(persist.runtime, persist.input.session)
  const found = await persist.runtime.historyStore.findTurn(scope, persist.turn).catch(() => [])
  return found.length > 0
}
