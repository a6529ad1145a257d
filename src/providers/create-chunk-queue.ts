/**
 * The queue behind both body pumps: chunks in arrival order, and an end (clean or with the transport
 * error) that `take` reports only after every chunk queued before it has been taken.
 */
export interface ChunkQueue {
  push(chunk: Uint8Array): void
  /** Ends the queue once; a later call changes nothing. */
  end(error?: unknown): void
  /** Drops what is queued (the caller wants nothing more). */
  clear(): void
  readonly ended: boolean
  /** Every chunk queued since the last call, or `undefined` after a clean end; rejects after a failed one. */
  take(): Promise<Uint8Array[] | undefined>
}

export function createChunkQueue(): ChunkQueue {
  let chunks: Uint8Array[] = []
  let ended = false
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined

  const notify = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }

  return {
    push(chunk) {
      if (ended || chunk.byteLength === 0) return
      chunks.push(chunk)
      notify()
    },
    end(error) {
      if (ended) return
      ended = true
      if (error !== undefined) failure = { error }
      notify()
    },
    clear() {
      chunks = []
    },
    get ended() {
      return ended
    },
    async take() {
      while (chunks.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve))
      if (chunks.length > 0) {
        const taken = chunks
        chunks = []
        return taken
      }
      if (failure) throw failure.error
      return undefined
    },
  }
}
