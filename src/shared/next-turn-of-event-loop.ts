/**
 * Resolves after the event loop's next check phase (`setImmediate`): the I/O that is ready (other
 * sessions' frames and chunks) and the writes corked until the end of this tick go first. For work
 * that may wait a moment but would otherwise run in the same stretch of promise callbacks.
 */
export function nextTurnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
