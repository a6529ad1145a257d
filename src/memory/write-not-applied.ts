/**
 * A write the store knows it did not apply: it never reached the server (not connected, the
 * connection refused, a client that could not send it), the server refused it (a Redis error
 * reply), or its transaction ended before its COMMIT was sent (its caller's commit gate closed
 * first, say). Such a failure needs no read-back: the turn is certainly not stored. The mark
 * survives wrapping, since `isWriteNotApplied` follows the `cause` chain.
 */
const marker = Symbol.for('charpipe.write-not-applied')

export function markWriteNotApplied<T>(error: T): T {
  if (error !== null && typeof error === 'object') (error as Record<symbol, unknown>)[marker] = true
  return error
}

export function isWriteNotApplied(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    if (typeof current !== 'object') return false
    if ((current as Record<symbol, unknown>)[marker] === true) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}
