/**
 * `POST /api/sessions/:id/audience` charges its origin per turn, like every other audience door:
 * many requests answered in one reply cost one turn of `server.limits.turns_per_minute`, lines never
 * answered cost none, and past the budget the lines wait for the minute instead of being refused.
 * A flood of requests is bounded on its own, by `server.limits.audience_requests_per_minute`, which
 * `observe` and `open` requests (they store lines and open sessions too) share.
 * The model and the limits' minutes run on one manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/audience/create-audience-hub.js'
import { createCharpipe } from '../../src/engine/index.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { createTimedProvider, type TimedProvider } from './timed-provider.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const minute = 60_000

async function start(): Promise<{ clock: ManualClock; provider: TimedProvider; server: TestServer }> {
  const clock = createManualClock()
  const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20 })
  server = await startTestServer({
    configText: [
      'server:',
      '  token: chat-token',
      '  admin_token: admin-token',
      '  trusted_proxies: ["127.0.0.1"]',
      '  limits: { turns_per_minute: 2, audience_requests_per_minute: 20 }',
      'history: { store: memory }',
      'memory: { enabled: false }',
      'character: { reply_format: plain }',
      'audience:',
      '  reply: selected',
      '  batch_max: 20',
      '  queue_max: 50',
      '  min_gap_ms: 0',
      '  max_wait_ms: 600000',
      '  dedupe_window_ms: 0',
      '  blocked_words: [forbidden]',
    ].join('\n'),
    createCharpipe: (config, logger) => createCharpipe(config, { logger, provider, clock }),
    limitsClock: clock,
  })
  return { clock, provider, server }
}

function post(address: string, id: string, text: string, token = 'chat-token') {
  return fetch(`${server!.url}/api/sessions/live/audience`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'x-forwarded-for': address,
    },
    body: JSON.stringify({ messages: [{ id, speaker: { id: `viewer-${id}` }, text }] }),
  })
}

/** Every id a reply answered, in order. */
function followAnswers(target: TestServer): string[] {
  const answered: string[] = []
  target.charpipe.sessions.follow({
    session: 'live',
    onEvent: (event: SessionEvent) => {
      if (event.type === 'llm_done') answered.push(...(event.replying_to ?? []))
    },
  })
  return answered
}

/** Lets the server take what it was sent, and replies run to their end. */
async function settle(clock: ManualClock, milliseconds = 5_000) {
  for (let step = 0; step < milliseconds; step += 500) await clock.advance(500)
}

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`)

describe('audience over HTTP, charged per turn', () => {
  it('charges a turn per reply, not per request, and lets lines wait for the next minute', async () => {
    const { clock, provider } = await start()
    const answered = followAnswers(server!)
    const address = '203.0.113.7'

    // Lines never answered cost nothing: ten blocked ones leave both turns of the minute.
    for (const id of ids('blocked-', 10)) {
      const response = await post(address, id, 'so forbidden')
      expect(response.status).toBe(202)
      expect(await response.json()).toEqual({ accepted: 0, dropped: [{ id, reason: 'blocked' }] })
    }
    await settle(clock)
    expect(provider.requests).toHaveLength(0)

    // Five requests, answered in at most two replies: the minute's two turns.
    for (const id of ids('first-', 5)) expect((await post(address, id, `hello ${id}`)).status).toBe(202)
    await settle(clock)
    expect(answered).toEqual(ids('first-', 5))
    expect(provider.requests.length).toBeLessThanOrEqual(2)

    // Spend what is left of the budget, then five more requests: accepted, waiting for the minute.
    while (provider.requests.length < 2) {
      const id = `spend-${provider.requests.length}`
      expect((await post(address, id, `hello ${id}`)).status).toBe(202)
      await settle(clock)
    }
    const spent = answered.length
    for (const id of ids('later-', 5)) expect((await post(address, id, `hello ${id}`)).status).toBe(202)
    await settle(clock, 30_000)
    expect(provider.requests).toHaveLength(2)
    expect(answered).toHaveLength(spent)
    const waiting = server!.charpipe.audience.queue({ session: 'live' }).waiting
    expect(waiting.map((entry) => entry.id).sort()).toEqual(ids('later-', 5))

    // Once the minute frees a turn, one reply answers all five: one model request.
    await settle(clock, minute)
    expect(provider.requests).toHaveLength(3)
    expect(answered.slice(spent)).toEqual(ids('later-', 5))
  })

  it("keeps each origin's turns its own: another address, or the admin token, is not held by a spent one", async () => {
    const { clock, provider } = await start()
    const answered = followAnswers(server!)
    for (const id of ids('a-', 3)) {
      await post('203.0.113.1', id, `hello ${id}`)
      await settle(clock)
    }
    // The first address paid two turns; its third line waits, another address's is answered.
    expect(provider.requests).toHaveLength(2)
    await post('203.0.113.2', 'b-0', 'hello b-0')
    await settle(clock)
    expect(provider.requests).toHaveLength(3)
    expect(answered).toContain('b-0')
    await post('203.0.113.1', 'admin-0', 'hello from the admin', 'admin-token')
    await settle(clock)
    expect(answered).toContain('admin-0')
    expect(answered).not.toContain('a-2')
  })

  it('refuses a flood of requests past audience_requests_per_minute with its reason, and stays up', async () => {
    const { clock } = await start()
    const address = '203.0.113.9'
    const statuses: number[] = []
    let refusal: Response | undefined
    for (const id of ids('flood-', 25)) {
      const response = await post(address, id, `flood ${id}`)
      statuses.push(response.status)
      if (response.status === 429) refusal ??= response
      else await response.body?.cancel()
    }
    expect(statuses.filter((status) => status === 202)).toHaveLength(20)
    expect(statuses.slice(20)).toEqual([429, 429, 429, 429, 429])
    expect(Number(refusal!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(await refusal!.json()).toEqual({
      error: {
        code: 'rate_limited',
        message:
          'too many audience, observe and open requests: at most 20 a minute (server.limits.audience_requests_per_minute)',
      },
    })
    // A malformed body past the bound is refused for the bound too, before it is read.
    const malformed = await fetch(`${server!.url}/api/sessions/live/audience`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer chat-token',
        'content-type': 'application/json',
        'x-forwarded-for': address,
      },
      body: '{"messages": [',
    })
    expect(malformed.status).toBe(429)
    await malformed.body?.cancel()
    // Another origin is not held back, the process answers, and the refusals are counted.
    expect((await post('203.0.113.10', 'other-0', 'hello')).status).toBe(202)
    expect((await fetch(`${server!.url}/livez`)).status).toBe(200)
    const metrics = await fetch(`${server!.url}/metrics`, {
      headers: { authorization: 'Bearer admin-token' },
    }).then((response) => response.text())
    expect(metrics).toMatch(/charpipe_admission_refused_total\{door="http_audience",code="rate_limited"\} 6/)
    // A minute later the origin may send again.
    await clock.advance(minute)
    expect((await post(address, 'after-0', 'hello again')).status).toBe(202)
  })

  it('counts observe and open requests under the same bound as audience requests', async () => {
    const { clock } = await start()
    const address = '203.0.113.11'
    const request = (path: string, body: object) =>
      fetch(`${server!.url}/api/sessions/live/${path}`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer chat-token',
          'content-type': 'application/json',
          'x-forwarded-for': address,
        },
        body: JSON.stringify(body),
      })
    const observe = (index: number) =>
      request('observe', { speaker: { id: 'viewer' }, text: `line ${index}` })
    for (let index = 0; index < 15; index++) expect((await observe(index)).status).toBe(201)
    for (let index = 0; index < 4; index++) expect((await request('open', {})).status).toBe(200)
    expect((await post(address, 'last-0', 'the twentieth')).status).toBe(202)
    const refusals = [await observe(15), await request('open', {}), await post(address, 'over-0', 'one more')]
    for (const refusal of refusals) {
      expect(refusal.status).toBe(429)
      expect(((await refusal.json()) as { error: { message: string } }).error.message).toContain(
        'server.limits.audience_requests_per_minute',
      )
    }
    // Nothing past the bound was stored: fifteen observed lines and the audience line.
    const stored = await fetch(`${server!.url}/api/sessions/live/messages`, {
      headers: { authorization: 'Bearer admin-token' },
    }).then((response) => response.json() as Promise<{ messages: { content: unknown }[] }>)
    expect(JSON.stringify(stored)).not.toContain('line 15')
    await clock.advance(minute)
    expect((await observe(16)).status).toBe(201)
  })
})
