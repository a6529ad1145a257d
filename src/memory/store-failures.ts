/**
 * Store failures as they happen, for whoever counts them (the server's `/metrics`). A listener list
 * rather than a parameter threaded through every factory: the stores are opened deep inside the
 * engine, and a process has one set of counters anyway (like prom-client's default registry).
 */

export interface StoreFailure {
  /** `history` or `memory`. */
  store: string
  /** The back end: `sqlite`, `redis`, `postgres`, `memory`. */
  backend: string
  /** The store method that failed (`appendTurn`, `search`, …). */
  operation: string
  /** True when the call missed its deadline; false when the store answered with an error. */
  timedOut: boolean
}

type StoreFailureListener = (failure: StoreFailure) => void

const listeners = new Set<StoreFailureListener>()

/** Calls `listener` on every store failure from now on; returns the function that stops it. */
export function onStoreFailure(listener: StoreFailureListener): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

export function recordStoreFailure(failure: StoreFailure): void {
  for (const listener of listeners) {
    try {
      listener(failure)
    } catch {
      // A counter must never break a turn.
    }
  }
}
