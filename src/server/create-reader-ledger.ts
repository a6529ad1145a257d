/**
 * The bytes a server holds for readers that lag (WebSocket clients, streamed HTTP answers), counted
 * in one place. Each reader has an account that says how much is held for it now: what waits in the
 * server's queues, the socket's unsent output and an estimate of the objects around them. Two bounds
 * apply on every change of an account, never on a timer, so a reader is cut while the load that fills
 * it still runs: one reader past its own bound (`server.ws_max_buffered_bytes`) is cut, and while all
 * readers together hold more than `server.limits.buffered_bytes_total` the reader that holds the most
 * (the one that lags most) is cut, then the next, until the total is under the bound again. A cut
 * reader's bytes leave the ledger at once: its owner drops what it holds and closes the connection.
 */

/** Why a reader was cut: past its own bound, or the one reader cut to bring the total under its bound. */
export interface ReaderCut {
  bound: 'reader' | 'total'
  /** What was held for the reader when it was cut. */
  heldBytes: number
  /** The bound that was passed, in bytes. */
  limit: number
}

export interface OpenReaderOptions {
  /** Past this many bytes held for this one reader, it is cut. */
  maxBytes: number
  /** Runs once when the reader is cut (by its own bound or the total's); its bytes already left the ledger. */
  onCut(cut: ReaderCut): void
}

export interface ReaderAccount {
  /**
   * Says how many bytes are held for the reader now; cuts readers past a bound. Returns false when
   * this reader is cut (now or before): nothing more is to be held for it.
   */
  hold(bytes: number): boolean
  /** What the ledger counts for this reader (0 once it is cut or closed). */
  readonly heldBytes: number
  readonly cut: boolean
  /** The reader is gone: its bytes leave the ledger and nothing of it stays here. */
  close(): void
}

export interface CreateReaderLedgerOptions {
  /** Most bytes held for all readers together, read at every check so a config change applies at once. */
  readMaxTotalBytes(): number
}

export interface ReaderLedger {
  open(options: OpenReaderOptions): ReaderAccount
  /** Bytes held for all open readers together. */
  readonly totalBytes: number
  /** Readers that hold bytes now (the ledger keeps nothing of the others). */
  readonly readers: number
}

interface Entry {
  held: number
  cut: boolean
  closed: boolean
  options: OpenReaderOptions
}

export function createReaderLedger(options: CreateReaderLedgerOptions): ReaderLedger {
  // The accounts that hold something: one that holds nothing, or is closed or cut, is not in the set,
  // so the ledger keeps nothing of a reader that is gone, even one whose owner never closed it.
  const holding = new Set<Entry>()
  let total = 0

  const cutEntry = (entry: Entry, bound: ReaderCut['bound'], limit: number) => {
    const heldBytes = entry.held
    holding.delete(entry)
    total -= entry.held
    entry.held = 0
    entry.cut = true
    entry.options.onCut({ bound, heldBytes, limit })
  }
  const mostLagging = (): Entry | undefined => {
    let most: Entry | undefined
    for (const entry of holding) if (!most || entry.held > most.held) most = entry
    return most
  }
  const enforceTotal = () => {
    const limit = options.readMaxTotalBytes()
    while (total > limit) {
      const most = mostLagging()
      if (!most) return
      cutEntry(most, 'total', limit)
    }
  }

  return {
    get totalBytes() {
      return total
    },
    get readers() {
      return holding.size
    },
    open(readerOptions) {
      const entry: Entry = { held: 0, cut: false, closed: false, options: readerOptions }
      return {
        get heldBytes() {
          return entry.held
        },
        get cut() {
          return entry.cut
        },
        hold(bytes) {
          if (entry.cut || entry.closed) return false
          const held = Math.max(0, bytes)
          total += held - entry.held
          entry.held = held
          if (held > 0) holding.add(entry)
          else holding.delete(entry)
          if (held > readerOptions.maxBytes) cutEntry(entry, 'reader', readerOptions.maxBytes)
          else if (held > 0) enforceTotal()
          return !entry.cut
        },
        close() {
          if (entry.closed) return
          entry.closed = true
          holding.delete(entry)
          total -= entry.held
          entry.held = 0
        },
      }
    },
  }
}

/** Why a reader was cut, for its close frame or the log: which bound, and that it is the reader's doing. */
export function describeReaderCut(cut: ReaderCut): string {
  return cut.bound === 'reader'
    ? `the client is not reading: more than ${cut.limit} bytes waiting`
    : `the client is not reading: it lags most while the slow readers together hold more than ${cut.limit} bytes`
}

/** A ledger without a total bound: each reader is bound only by its own `maxBytes`. */
export function createUnboundedReaderLedger(): ReaderLedger {
  return createReaderLedger({ readMaxTotalBytes: () => Number.POSITIVE_INFINITY })
}
