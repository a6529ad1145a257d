/**
 * An origin's turn budget counts the turns the server starts for its audience messages, not the
 * messages: a connector with `turns_per_minute: 2` fed 100 lines in a minute gets at most 2 replies
 * a minute, every line reaches the selector, and each one is answered, dropped with a reason or
 * still waiting, never lost silently. The same for a WebSocket-like origin handing `admitTurn`
 * itself. Time is a manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createMinuteBudget } from '../../src/admission/create-minute-budget.js'
import { createAdmission, createRateLimitedLog, guardConnectorHost } from '../../src/admission/index.js'
import type { SessionEvent } from '../../src/audience/create-audience-hub.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { AudienceInput, Charpipe } from '../../src/engine/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider, type TimedProvider } from './timed-provider.js'

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

const minute = 60_000
const audience = { reply: 'every' as const, min_gap_ms: 0, queue_max: 5, batch_max: 3, max_wait_ms: 20_000 }

async function setUp() {
  const clock = createManualClock()
  const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20 })
  charpipe = await createCharpipe(makeConfig({ character: { reply_format: 'plain' }, audience }), {
    provider,
    clock,
  })
  return { clock, provider, charpipe }
}

/** What became of each message id: answered by a turn, or dropped (with the reason). */
function followFates(engine: Charpipe, session: string) {
  const answered: string[] = []
  const dropped = new Map<string, string>()
  engine.sessions.follow({
    session,
    onEvent: (event: SessionEvent) => {
      if (event.type === 'audience_dropped') for (const id of event.ids) dropped.set(id, event.reason)
      if (event.type === 'llm_done') answered.push(...(event.replying_to ?? []))
    },
  })
  return { answered, dropped }
}

/** 100 lines from 100 viewers, one every 600 ms (a minute), then two quiet minutes. */
async function feedMinute(
  clock: ManualClock,
  provider: TimedProvider,
  send: (id: string, index: number) => void,
): Promise<number[]> {
  const requestsAtMinute: number[] = []
  for (let index = 0; index < 100; index++) {
    send(`m${index}`, index)
    await clock.advance(600)
  }
  requestsAtMinute.push(provider.requests.length)
  for (let step = 0; step < 2 * minute; step += 500) {
    await clock.advance(500)
    if ((step + 500) % minute === 0) requestsAtMinute.push(provider.requests.length)
  }
  return requestsAtMinute
}

function line(id: string, index: number) {
  return { id, speaker: { id: `viewer-${index}` }, text: `line ${index} about the weather` }
}

function expectNoneLost(
  engine: Charpipe,
  session: string,
  fates: ReturnType<typeof followFates>,
  requestsAtMinute: number[],
) {
  // At most 2 turns a minute, so at most 2 model requests a minute.
  expect(requestsAtMinute[0]).toBeGreaterThan(0)
  expect(requestsAtMinute[0]).toBeLessThanOrEqual(2)
  for (let at = 1; at < requestsAtMinute.length; at++)
    expect(requestsAtMinute[at]! - requestsAtMinute[at - 1]!).toBeLessThanOrEqual(2)
  // Every line is answered, dropped with a reason, or still waiting; none twice, none lost.
  const waiting = engine.audience.queue({ session: session }).waiting.map((entry) => entry.id)
  const all = [...fates.answered, ...fates.dropped.keys(), ...waiting]
  expect(new Set(all).size).toBe(all.length)
  expect(new Set(all)).toEqual(new Set(Array.from({ length: 100 }, (_, index) => `m${index}`)))
  expect(fates.answered.length).toBeGreaterThan(0)
  // Lines past the queue's bounds are dropped for room (or age, while the budget is spent).
  const reasons = new Set(fates.dropped.values())
  expect(reasons.has('queue_full')).toBe(true)
  for (const reason of reasons) expect(['queue_full', 'too_old']).toContain(reason)
}

describe('turn budgets count audience turns, not messages', () => {
  it('holds a connector with turns_per_minute: 2 to 2 replies a minute, and loses no line', async () => {
    const { clock, provider, charpipe: engine } = await setUp()
    const admission = createAdmission()
    const logger = createLogger({ level: 'silent', format: 'json' })
    const host = guardConnectorHost({
      host: engine,
      connector: { kind: 'twitch', name: 'tw', index: 0 },
      readTurnsPerMinute: () => 2,
      admission,
      log: createRateLimitedLog({ logger, now: () => clock.now() }),
      now: () => clock.now(),
    })
    const session = 'twitch:tw:channel'
    const fates = followFates(engine, session)
    const handed: string[] = []
    const requestsAtMinute = await feedMinute(clock, provider, (id, index) => {
      const result = host.audience.send({ session, messages: [line(id, index)] })
      if (result.accepted === 1) handed.push(id)
    })
    // Every line reached the selector: the budget refused none at the door.
    expect(handed).toHaveLength(100)
    expect(admission.stats().refused.connector_audience).toBeUndefined()
    expectNoneLost(engine, session, fates, requestsAtMinute)
  })

  it('counts the turns a connection causes with its audience messages against its own budget', async () => {
    const { clock, provider, charpipe: engine } = await setUp()
    const budget = createMinuteBudget({
      readPerMinute: () => 2,
      setting: 'server.limits.turns_per_minute',
      now: () => clock.now(),
    })
    let charged = 0
    const admitTurn: AudienceInput['admitTurn'] = () => {
      const taken = budget.take()
      if (taken.ok) charged++
      return taken
    }
    const session = 'room'
    const fates = followFates(engine, session)
    const requestsAtMinute = await feedMinute(clock, provider, (id, index) => {
      engine.audience.send({ session, messages: [line(id, index)], admitTurn })
    })
    expect(charged).toBe(provider.requests.length)
    expectNoneLost(engine, session, fates, requestsAtMinute)
  })
})
