import { describe, expect, it } from 'vitest'
import { createAudienceOrigins } from './create-audience-origins.js'

function setUp(limits = { turns_per_minute: 2, audience_requests_per_minute: 3, live_sessions: 2 }) {
  let time = 0
  const origins = createAudienceOrigins({ readLimits: () => limits, now: () => time })
  return { origins, advance: (milliseconds: number) => (time += milliseconds) }
}

describe('createAudienceOrigins', () => {
  it('hands one admitter per origin, so a batch of its lines from many requests costs one turn', () => {
    const { origins } = setUp()
    expect(origins.admitTurnOf('chat 10.0.0.1')).toBe(origins.admitTurnOf('chat 10.0.0.1'))
    expect(origins.admitTurnOf('chat 10.0.0.1')).not.toBe(origins.admitTurnOf('chat 10.0.0.2'))
  })

  it('counts turns per origin over the minute, apart from its requests', () => {
    const { origins, advance } = setUp()
    const admit = origins.admitTurnOf('chat 10.0.0.1')
    expect([admit().ok, admit().ok]).toEqual([true, true])
    advance(15_000)
    expect(admit()).toEqual({ ok: false, retryAfterMs: 45_000 })
    // Another origin, and the origin's requests, are not held by its spent turns.
    expect(origins.admitTurnOf('admin 10.0.0.1')().ok).toBe(true)
    expect(origins.takeRequest('chat 10.0.0.1').ok).toBe(true)
    advance(45_000)
    expect(admit().ok).toBe(true)
  })

  it('refuses requests past audience_requests_per_minute, naming the setting', () => {
    const { origins, advance } = setUp()
    for (let index = 0; index < 3; index++) expect(origins.takeRequest('chat 10.0.0.1').ok).toBe(true)
    advance(1_000)
    expect(origins.takeRequest('chat 10.0.0.1')).toEqual({
      ok: false,
      message:
        'too many audience, observe and open requests: at most 3 a minute (server.limits.audience_requests_per_minute)',
      retryAfterMs: 59_000,
    })
    expect(origins.takeRequest('chat 10.0.0.2').ok).toBe(true)
  })

  it("charges a forgotten origin's admitter to the origin's window of now", () => {
    const { origins, advance } = setUp()
    const early = origins.admitTurnOf('chat 10.0.0.1')
    early()
    advance(61_000)
    // A thousand calls later the quiet origin is swept; lines still holding its old admitter remain.
    for (let index = 0; index < 1000; index++) origins.takeRequest(`other ${index}`)
    const later = origins.admitTurnOf('chat 10.0.0.1')
    expect([later().ok, early().ok]).toEqual([true, true])
    expect(early().ok).toBe(false)
    expect(later().ok).toBe(false)
  })

  it('bounds the sessions an origin keeps live by live_sessions, counting each until it is let go', () => {
    const { origins, advance } = setUp()
    const kept = (session: string) => {
      const admitted = origins.admitSession('chat 10.0.0.1', session)
      if (!admitted.ok) throw new Error(admitted.message)
      admitted.keeper.kept()
      return admitted.keeper
    }
    const first = kept('a')
    kept('b')
    // A session it keeps live already is no new one; a third is refused, naming the setting.
    expect(origins.admitSession('chat 10.0.0.1', 'a').ok).toBe(true)
    expect(origins.admitSession('chat 10.0.0.1', 'c')).toEqual({
      ok: false,
      message: 'this client already keeps 2 sessions live: at most 2 (server.limits.live_sessions)',
    })
    expect(origins.admitSession('chat 10.0.0.2', 'c').ok).toBe(true)
    // Admitted but never kept (its lines were refused later) counts nothing.
    expect(origins.admitSession('chat 10.0.0.3', 'a').ok).toBe(true)
    // Quiet for minutes, the origin is not forgotten while it keeps sessions live.
    advance(120_000)
    for (let index = 0; index < 1000; index++) origins.takeRequest(`other ${index}`)
    expect(origins.admitSession('chat 10.0.0.1', 'c').ok).toBe(false)
    first.released()
    expect(origins.admitSession('chat 10.0.0.1', 'c').ok).toBe(true)
  })
})
