/**
 * The queue behind both body pumps: chunks in arrival order, and an end (clean or with the transport
 * error) that `take` reports only after every chunk queued before it has been taken. It holds at most
 * about `maxQueuedBytes`: past it `push` says to stop reading until the next `take`. A model that
 * streams faster than the turn handles its events (a busy server, a reply in tiny pieces) otherwise
 * has its whole reply read into memory ahead of the turn, each network chunk a Buffer with its
 * objects; the rest now waits in the connection (the kernel's buffers, then the upstream itself).
 */
export interface ChunkQueue {
  /** Queues a chunk; false once the queue holds `maxQueuedBytes` or more: read no more until `onceRoom`. */
  push(chunk: Uint8Array): boolean
  /** Ends the queue once; a later call changes nothing. */
  end(error?: unknown): void
  /** Drops what is queued (the caller wants nothing more). */
  clear(): void
  readonly ended: boolean
  /** Bytes queued and not yet taken. */
  readonly queuedBytes: number
  /** Runs `listener` once there is room again: what was queued was taken or dropped, or the queue ended. */
  onceRoom(listener: () => void): void
  /** Every chunk queued since the last call, or `undefined` after a clean end; rejects after a failed one. */
  take(): Promise<Uint8Array[] | undefined>
}

export interface CreateChunkQueueOptions {
  /** From this many bytes queued, `push` asks the reader to pause. @default 65536 */
  maxQueuedBytes?: number
}

/** A few network reads' worth: enough that the turn never waits on the pause, small beside a reply. */
const defaultMaxQueuedBytes = 64 * 1024

export function createChunkQueue(options: CreateChunkQueueOptions = {}): ChunkQueue {
  const maxQueuedBytes = options.maxQueuedBytes ?? defaultMaxQueuedBytes
  let chunks: Uint8Array[] = []
  let queuedBytes = 0
  let ended = false
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined
  let roomListeners: (() => void)[] = []

  const notify = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  const callRoomListeners = () => {
    const listeners = roomListeners
    roomListeners = []
    for (const listener of listeners) listener()
  }
  const makeRoom = () => {
    chunks = []
    queuedBytes = 0
    callRoomListeners()
  }

  return {
    push(chunk) {
      if (ended || chunk.byteLength === 0) return !ended
      chunks.push(chunk)
      queuedBytes += chunk.byteLength
      notify()
      return queuedBytes < maxQueuedBytes
    },
    end(error) {
      if (ended) return
      ended = true
      if (error !== undefined) failure = { error }
      notify()
      // A reader paused for room would wait forever on a queue that takes nothing more.
      callRoomListeners()
    },
    clear: makeRoom,
    get ended() {
      return ended
    },
    get queuedBytes() {
      return queuedBytes
    },
    onceRoom(listener) {
      if (ended || queuedBytes < maxQueuedBytes) listener()
      else roomListeners.push(listener)
    },
    async take() {
      while (chunks.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve))
      if (chunks.length > 0) {
        const taken = chunks
        makeRoom()
        return taken
      }
      if (failure) throw failure.error
      return undefined
    },
  }
}
