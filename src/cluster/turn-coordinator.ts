/**
 * What the engine asks of a cluster: a turn lock per session shared by every server, and a way to
 * reach the server running a session's turn with an interrupt. Without a cluster the engine uses
 * none of it and orders turns in its own process only.
 */

export interface TurnLease {
  /** Grows by one each time any server takes the session's lock: a later holder has a larger one. */
  readonly fence: number
  /**
   * Whether the lock is still this turn's (same token, same fence), extending it to cover the write
   * that follows. False once it expired and moved to another server: the turn must not be stored.
   */
  confirm(): Promise<boolean>
  /** Lets the next turn of the session start, on any server. Never throws. */
  release(): Promise<void>
}

/** An interrupt one server sends the others: the one running the session's turn acts on it. */
export interface ClusterInterrupt {
  session: string
  /** Only this turn (when the sender knows it); otherwise every turn of the session. */
  turn?: string
  /** What the client heard of the reply (kept as the stored reply, as in one process). */
  heard?: string
  /** Also cancel the turns queued behind the running one (`interrupt` with `clearQueue`). */
  clearQueue?: boolean
  /**
   * With `new_input`: the new input's place among the session's inputs (one counter in Redis for all
   * servers); only turns of earlier inputs stop, so a message arriving late never stops a newer turn.
   */
  order?: number
  /** `interrupt`: asked for by a client; `new_input`: a new input arrived elsewhere (`on_new_input: interrupt`). */
  kind: 'interrupt' | 'new_input'
}

/** Interrupts the local turns the message names; resolves with how many it stopped. */
export type InterruptListener = (message: ClusterInterrupt) => number | Promise<number>

export interface TurnCoordinator {
  /**
   * Waits for the session's lock (at most `cluster.lock_wait_ms`). Rejects with the signal's reason
   * when it aborts first, with StoreUnavailableError when Redis does not answer or the wait is over.
   * With the input's number (`announceNewInput`; 0: none), the lock also waits for every earlier
   * numbered input of the session that has not taken it yet, on any server: turns take the lock,
   * and are stored, in input order. Taking it ends the input's wait; failing (not aborting) withdraws it.
   * A numbered input that comes after a later input took the lock is refused for good, with
   * `interrupted_by_new_input`: its `turn` (the input's turn id) is refused again whatever number
   * it is sent again with (or without one), so it is never stored after the newer input.
   */
  acquire(
    session: string,
    signal: AbortSignal,
    order?: number | Promise<number>,
    turn?: string,
  ): Promise<TurnLease>
  /**
   * Numbers a new input of the session (`on_new_input: interrupt`) and tells the other servers, so
   * they stop the turns of earlier inputs; resolves with the number. Until its turn takes the lock
   * or is withdrawn (at most `cluster.lock_wait_ms` and a few store deadlines later, should its
   * server die), later inputs wait for it.
   */
  announceNewInput(session: string): Promise<number>
  /** The numbered input's turn will not take the lock: later inputs stop waiting for it. Never throws. */
  withdrawInput(session: string, order: number): Promise<void>
  /** Sends an interrupt to the other servers (best effort: a lost message is logged). */
  publishInterrupt(message: ClusterInterrupt): Promise<void>
  /** Resolves once this server is subscribed (interrupts sent before that are not heard). */
  onInterrupt(listener: InterruptListener): Promise<void>
}
