/**
 * Idle turns count against whoever keeps the session live: the origin of the session's last
 * messages (its `admitTurn`), or a follower's `admitIdle`, is asked before each one, and a session
 * where no one pays gets none until one admits again. Time is a manual clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider } from './timed-provider.js'

/** A turn budget for a test: `left` turns, and how often it was asked. */
function createBudget(left = 0) {
  const budget = {
    left,
    asked: 0,
    admitTurn: () => {
      budget.asked++
      if (budget.left === 0) return { ok: false as const, retryAfterMs: 1000 }
      budget.left--
      return { ok: true as const }
    },
  }
  return budget
}

async function startObserving(clock: ManualClock, maxInRow = 5) {
  const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20 })
  // `reply: none`: lines are only observed, so every model request is an idle turn.
  charpipe = await createCharpipe(
    makeConfig({
      character: { reply_format: 'plain' },
      audience: { reply: 'none', idle: { after_ms: 5000, max_in_row: maxInRow } },
    }),
    { provider, clock },
  )
  return provider
}

const line = (id: string) => [{ id, speaker: { id: `viewer-${id}` }, text: `hello ${id}` }]

let charpipe: Charpipe | undefined
afterEach(async () => {
  await charpipe?.close()
  charpipe = undefined
})

async function pass(clock: ManualClock, milliseconds: number, step = 100) {
  for (let passed = 0; passed < milliseconds; passed += step)
    await clock.advance(Math.min(step, milliseconds - passed))
}

describe('idle turns and the follower who caused them', () => {
  it('starts no idle turn while the follower admits none, and one once it does', async () => {
    const clock = createManualClock()
    const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20 })
    charpipe = await createCharpipe(
      makeConfig({
        character: { reply_format: 'plain' },
        audience: { idle: { after_ms: 5000, max_in_row: 5 } },
      }),
      { provider, clock },
    )
    let budget = 0
    let asked = 0
    charpipe.sessions.follow({
      session: 'room',
      onEvent: () => {},
      admitIdle: () => {
        asked++
        if (budget === 0) return false
        budget--
        return true
      },
    })
    // A person is there (a follower alone never starts an idle turn).
    charpipe.sessions.activity({ session: 'room', speaking: false })
    await pass(clock, 16_000)
    expect(asked).toBeGreaterThanOrEqual(2)
    expect(provider.requests).toHaveLength(0)
    budget = 1
    await pass(clock, 5_100)
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    await pass(clock, 20_000)
    expect(provider.requests).toHaveLength(1)
  })

  it('lets a follower without an admitter keep the session speaking first', async () => {
    const clock = createManualClock()
    const provider = createTimedProvider({ clock, firstTokenMs: 100, chunkMs: 20 })
    charpipe = await createCharpipe(
      makeConfig({
        character: { reply_format: 'plain' },
        audience: { idle: { after_ms: 5000, max_in_row: 1 } },
      }),
      { provider, clock },
    )
    charpipe.sessions.follow({ session: 'room', onEvent: () => {}, admitIdle: () => false })
    charpipe.sessions.follow({ session: 'room', onEvent: () => {} })
    charpipe.sessions.activity({ session: 'room', speaking: false })
    await pass(clock, 5_200)
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
  })

  it("charges an idle turn to the origin of the session's messages, and starts none it cannot pay", async () => {
    const clock = createManualClock()
    const provider = await startObserving(clock)
    const origin = createBudget(0)
    charpipe!.audience.send({ session: 'room', messages: line('a'), admitTurn: origin.admitTurn })
    await pass(clock, 16_000)
    expect(origin.asked).toBeGreaterThanOrEqual(2)
    expect(provider.requests).toHaveLength(0)
    origin.left = 1
    await pass(clock, 5_100)
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    await pass(clock, 20_000)
    expect(provider.requests).toHaveLength(1)
  })

  it('charges the origin whose messages came last, not one before it', async () => {
    const clock = createManualClock()
    const provider = await startObserving(clock, 1)
    const earlier = createBudget(5)
    const later = createBudget(1)
    charpipe!.audience.send({ session: 'room', messages: line('a'), admitTurn: earlier.admitTurn })
    charpipe!.audience.send({ session: 'room', messages: line('b'), admitTurn: later.admitTurn })
    await pass(clock, 5_200)
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
    expect([earlier.left, later.left]).toEqual([5, 0])
  })

  it('lets go of the origins that kept a session live once no idle turn is to come', async () => {
    const clock = createManualClock()
    const provider = await startObserving(clock, 2)
    const origin = createBudget(10)
    const held: string[] = []
    const keeperOf = (id: string) => ({
      id,
      kept: () => held.push(`kept ${id}`),
      released: () => held.push(`released ${id}`),
    })
    const send = (id: string, keeper: string) =>
      charpipe!.audience.send({
        session: 'room',
        messages: line(id),
        admitTurn: origin.admitTurn,
        keeper: keeperOf(keeper),
      })
    send('a', 'first')
    send('b', 'first')
    send('c', 'second')
    expect(held).toEqual(['kept first', 'kept second'])
    // Two idle turns in a row, then nothing more to start: both origins are let go, and the
    // session, live only by their lines, stays quiet.
    await pass(clock, 12_000)
    await vi.waitFor(() =>
      expect(held).toEqual(['kept first', 'kept second', 'released first', 'released second']),
    )
    await pass(clock, 30_000)
    expect(provider.requests).toHaveLength(2)
    // New lines make it live again, on their origin's account.
    send('d', 'first')
    expect(held.at(-1)).toBe('kept first')
  })
})
