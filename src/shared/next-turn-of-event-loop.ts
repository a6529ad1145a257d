/**
 * Resolves after the event loop's next check phase (`setImmediate`): the I/O that is ready (other
 * sessions' frames and chunks) and the writes corked until the end of this tick go first. For work
 * that may wait a moment but would otherwise run in the same stretch of promise callbacks. Called
 * in the poll phase it resolves in the same turn of the loop: no timer runs and no socket is read in
 * between (`nextPoll` waits for that).
 */
export function nextTurnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * Calls `resume` once the event loop has been through its timers and its poll phase: between two
 * long pieces of work, other sessions' frames are read and timers fire. One `setImmediate` from the
 * poll phase (where sockets' callbacks run) would resume in the same turn's check phase, so the two
 * pieces held the loop as one (a long reply's last sentences and its history row, 7 and 20 ms, as a
 * 29 ms stall). From the check phase it waits one turn of the loop more, which costs a quiet loop
 * microseconds.
 */
export function afterNextPoll(resume: () => void): void {
  setImmediate(() => setImmediate(resume))
}

/** Resolves once the event loop has been through its timers and its poll phase (`afterNextPoll`). */
export function nextPoll(): Promise<void> {
  return new Promise((resolve) => afterNextPoll(resolve))
}
