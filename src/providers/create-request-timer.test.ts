import { describe, expect, it } from 'vitest'
import { createRequestTimer } from './create-request-timer.js'

describe('createRequestTimer', () => {
  it('aborts the request on dispose while it is still open (a consumer left early)', () => {
    const timer = createRequestTimer({ timeoutMs: 60_000, stallTimeoutMs: 60_000 })
    timer.markChunk()
    timer.dispose()
    expect(timer.signal.aborted).toBe(true)
    expect(timer.cause).toBeUndefined()
  })

  it('aborts nothing on dispose once the body was read to its end', () => {
    const timer = createRequestTimer({ timeoutMs: 60_000, stallTimeoutMs: 60_000 })
    timer.markChunk()
    timer.dispose(true)
    expect(timer.signal.aborted).toBe(false)
  })

  it("follows the caller's abort, and stops following it once disposed", () => {
    const caller = new AbortController()
    const timer = createRequestTimer({ signal: caller.signal, timeoutMs: 60_000, stallTimeoutMs: 60_000 })
    caller.abort()
    expect(timer.cause).toBe('user')
    expect(timer.toError().code).toBe('aborted')

    const later = new AbortController()
    const finished = createRequestTimer({ signal: later.signal, timeoutMs: 60_000, stallTimeoutMs: 60_000 })
    finished.dispose(true)
    later.abort()
    expect(finished.signal.aborted).toBe(false)
  })
})
