/**
 * Sessions made live only by `POST /api/sessions/:id/audience` lines: their idle turns are charged
 * to the origin of those lines (its `server.limits.turns_per_minute`), and one origin keeps at most
 * `server.limits.live_sessions` sessions live, each until the server has nothing more to start there.
 * The model and the limits' minutes run on one manual clock; every model request is counted.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from '../server/start-test-server.js'
import { createTimedProvider } from './timed-provider.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const minute = 60_000

async function start(limits: string, audience: string[]) {
  const clock = createManualClock()
  const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20 })
  server = await startTestServer({
    configText: [
      'server:',
      '  token: chat-token',
      '  trusted_proxies: ["127.0.0.1"]',
      `  limits: ${limits}`,
      'history: { store: memory }',
      'memory: { enabled: false }',
      'character: { reply_format: plain }',
      'audience:',
      '  min_gap_ms: 0',
      '  max_wait_ms: 600000',
      ...audience.map((line) => `  ${line}`),
    ].join('\n'),
    createCharpipe: (config, logger) => createCharpipe(config, { logger, provider, clock }),
    limitsClock: clock,
  })
  return { clock, provider }
}

function post(address: string, session: string, id = `${session}-line`) {
  return fetch(`${server!.url}/api/sessions/${session}/audience`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer chat-token',
      'content-type': 'application/json',
      'x-forwarded-for': address,
    },
    body: JSON.stringify({ messages: [{ id, speaker: { id: `viewer-${id}` }, text: `hello from ${id}` }] }),
  })
}

async function pass(clock: ManualClock, milliseconds: number) {
  for (let step = 0; step < milliseconds; step += 500) await clock.advance(500)
}

const sessions = (count: number) => Array.from({ length: count }, (_, index) => `room-${index}`)

describe('sessions kept live by HTTP audience lines', () => {
  it("charges their idle turns to the lines' origin: one address, twenty sessions, its turns a minute", async () => {
    // `reply: none`: lines are only observed, so every model request is an idle turn.
    const { clock, provider } = await start('{ turns_per_minute: 2 }', [
      'reply: none',
      'idle: { after_ms: 5000, max_in_row: 3 }',
    ])
    for (const session of sessions(20)) expect((await post('203.0.113.5', session)).status).toBe(202)
    // Free, these sessions would have had 60 idle turns in the first minute.
    await pass(clock, minute - 1_000)
    expect(provider.requests).toHaveLength(2)
    // Each minute the origin pays two more; no more start.
    await pass(clock, 2 * minute)
    expect(provider.requests).toHaveLength(6)
    // Another address's session is not held by the spent one; the first address's fourth minute
    // begins meanwhile, with two turns of its own.
    expect((await post('203.0.113.6', 'elsewhere')).status).toBe(202)
    await pass(clock, 10_000)
    const elsewhere = provider.requests.filter((request) => JSON.stringify(request).includes('elsewhere'))
    expect(elsewhere).toHaveLength(1)
    expect(provider.requests).toHaveLength(6 + 2 + 1)
  })

  it('refuses lines for one session more than live_sessions, naming it, until one stops being live', async () => {
    const { clock, provider } = await start('{ turns_per_minute: 10, live_sessions: 3 }', [
      'reply: none',
      'idle: { after_ms: 5000, max_in_row: 1 }',
    ])
    const address = '203.0.113.7'
    for (const session of sessions(3)) expect((await post(address, session)).status).toBe(202)
    // More lines to a session it keeps live are taken; a fourth session is refused.
    expect((await post(address, 'room-0', 'room-0-again')).status).toBe(202)
    const refused = await post(address, 'room-3')
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: 'this client already keeps 3 sessions live: at most 3 (server.limits.live_sessions)',
      },
    })
    expect((await post('203.0.113.8', 'room-3')).status).toBe(202)
    // Each session's one idle turn ends: nothing more is to start there, and they stop counting.
    await pass(clock, 10_000)
    expect(provider.requests).toHaveLength(4)
    expect((await post(address, 'room-3')).status).toBe(202)
    expect((await post(address, 'room-4')).status).toBe(202)
    expect((await fetch(`${server!.url}/livez`)).status).toBe(200)
  })

  it('counts a session without idle turns only while its lines wait for a reply', async () => {
    const { clock, provider } = await start('{ turns_per_minute: 1, live_sessions: 1 }', ['reply: selected'])
    const address = '203.0.113.9'
    expect((await post(address, 'first')).status).toBe(202)
    await pass(clock, 5_000)
    expect(provider.requests).toHaveLength(1)
    // Answered: the first session is no longer live. The second's line waits for next minute's turn.
    expect((await post(address, 'second')).status).toBe(202)
    await pass(clock, 5_000)
    expect(provider.requests).toHaveLength(1)
    expect((await post(address, 'third')).status).toBe(429)
    await pass(clock, minute)
    expect(provider.requests).toHaveLength(2)
    expect((await post(address, 'third')).status).toBe(202)
  })
})
