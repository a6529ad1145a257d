/**
 * Holds what is written to many sockets until the event loop reaches its check phase, then sends
 * each socket's held frames in one write. A socket is corked at its first frame of a turn of the
 * loop, and every socket held is uncorked by one shared `setImmediate`: the frames of all the I/O
 * callbacks of one poll phase (several model reads, a client's frame, a timer) leave together,
 * where uncorking when the tick ends (`process.nextTick`) wrote once per callback. A write is a
 * syscall, and on loopback the receiver's TCP work too: the largest per-frame cost of a busy server.
 * Corking changes neither the order of a socket's writes nor what it counts as buffered (a corked
 * write is in `writableLength`, which `ws` reports in `bufferedAmount`), so backpressure and the
 * slow-reader bound see the same bytes; `end()` uncorks what it holds first, so a close sends them.
 */

/** The little of a `net.Socket` this needs. */
export interface CorkableSocket {
  cork(): void
  uncork(): void
}

export interface CreateWriteHoldOptions {
  /** Runs the release once the loop's I/O callbacks are over. @default setImmediate */
  schedule?: (release: () => void) => void
}

export interface WriteHold {
  /** Holds the socket's writes until the release (a no-op if already held). */
  hold(socket: CorkableSocket): void
  /** Sends what the socket holds now, without waiting (a turn's last frame, an interrupt's answer). */
  release(socket: CorkableSocket): void
}

export function createWriteHold(options: CreateWriteHoldOptions = {}): WriteHold {
  const schedule = options.schedule ?? setImmediate
  let held = new Set<CorkableSocket>()
  let scheduled = false
  const releaseAll = () => {
    scheduled = false
    // A write made while releasing (a drained socket's next frames) is held for the next turn.
    const sockets = held
    held = new Set()
    for (const socket of sockets) socket.uncork()
  }
  return {
    hold(socket) {
      if (held.has(socket)) return
      socket.cork()
      held.add(socket)
      if (scheduled) return
      scheduled = true
      schedule(releaseAll)
    },
    release(socket) {
      if (held.delete(socket)) socket.uncork()
    },
  }
}
