/**
 * Server-started turns only where someone is, through a OneBot connector over the real engine with
 * idle turns on (`audience.idle.after_ms`): a group's session is not live because the connector
 * exists (the link comes up 5 s after the engine, and minutes pass without a word in the group:
 * nothing is sent there); once a member speaks, the character answers and later speaks first; while
 * the link is down no idle turn runs, and nothing is sent in a burst when it is back. A connector's
 * own `audience.idle.after_ms: 0` keeps its groups quiet while the character speaks first elsewhere.
 * The audience's time is a manual clock; the link's reconnects are real, on loopback.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CharpipeConfig } from '../../src/config/schema.js'
import { startConnectors } from '../../src/connectors/index.js'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { createLogger } from '../../src/shared/logger.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider, type TimedProvider } from '../audience/timed-provider.js'
import { type FakeOnebot, startFakeOnebot } from './fake-onebot-implementation.js'

const logger = createLogger({ level: 'silent' })
const backoff = { initialMs: 20, maxMs: 100 }
const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Moves the clock in steps, letting the turn's promise work run between them. */
async function pass(clock: ManualClock, milliseconds: number, step = 250) {
  for (let passed = 0; passed < milliseconds; passed += step)
    await clock.advance(Math.min(step, milliseconds - passed))
}

async function setUp(connectorAudience?: Record<string, unknown>) {
  const fake: FakeOnebot = await startFakeOnebot()
  cleanups.push(() => fake.close())
  // The implementation is not there yet when the server starts.
  await fake.kill()
  const clock = createManualClock()
  const provider: TimedProvider = createTimedProvider({ clock, firstTokenMs: 200, chunkMs: 50 })
  const config = makeConfig({
    character: { reply_format: 'plain' },
    audience: { idle: { after_ms: 5000, max_in_row: 2 }, min_gap_ms: 0 },
    connectors: {
      onebot: [
        {
          name: 'qq',
          url: fake.url,
          groups: [123],
          ...(connectorAudience ? { audience: connectorAudience } : {}),
        },
      ],
    },
  }) as CharpipeConfig
  const charpipe: Charpipe = await createCharpipe(config, { provider, clock })
  cleanups.push(() => charpipe.close())
  const connectors = startConnectors({ config, host: charpipe, logger, backoff })
  cleanups.push(() => connectors.close())
  const state = () => connectors.list()[0]!.state
  return { fake, clock, provider, connectors, state }
}

describe('connector sessions are live only where someone is', () => {
  it('sends nothing to a group nobody spoke in, speaks first only while the link is up, and never in a burst', async () => {
    const { fake, clock, provider, state } = await setUp()
    await vi.waitFor(() => expect(state()).toBe('failed'))
    await pass(clock, 5000)
    await fake.restart()
    await vi.waitFor(() => expect(state()).toBe('ready'))
    await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
    // Minutes of an empty group: not live, so no idle turn and nothing sent.
    await pass(clock, 120_000)
    expect(provider.requests).toHaveLength(0)
    expect(fake.calls).toHaveLength(0)

    // A member speaks: answered, and after a quiet while the character speaks first.
    fake.sendGroupMessage({ groupId: 123, userId: 42, message: '有人吗' })
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    await pass(clock, 2000)
    await vi.waitFor(() => expect(fake.calls).toHaveLength(1))
    await pass(clock, 5000)
    await vi.waitFor(() => expect(provider.requests).toHaveLength(2))
    await pass(clock, 2000)
    await vi.waitFor(() => expect(fake.calls).toHaveLength(2))

    // The link drops: no idle turn runs while it is down, however long.
    await fake.kill()
    await vi.waitFor(() => expect(state()).toBe('failed'))
    await pass(clock, 60_000)
    expect(provider.requests).toHaveLength(2)
    await fake.restart()
    await vi.waitFor(() => expect(state()).toBe('ready'))
    await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
    expect(fake.calls).toHaveLength(2)
  })

  it("keeps a group quiet with the connector's own idle.after_ms: 0, answering members still", async () => {
    const { fake, clock, provider, state } = await setUp({ idle: { after_ms: 0 } })
    await fake.restart()
    await vi.waitFor(() => expect(state()).toBe('ready'))
    await vi.waitFor(() => expect(fake.connectedCount()).toBe(1))
    fake.sendGroupMessage({ groupId: 123, userId: 42, message: '晚上好' })
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    await pass(clock, 2000)
    await vi.waitFor(() => expect(fake.calls).toHaveLength(1))
    await pass(clock, 60_000)
    expect(provider.requests).toHaveLength(1)
    expect(fake.calls).toHaveLength(1)
  })
})
