/**
 * Idle turns count against whoever keeps the session live: a follower's `admitIdle` is asked before
 * each one, and a session whose followers' budgets are spent gets none until one admits again.
 * Time is a manual clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { createManualClock, type ManualClock } from '../../src/testing/index.js'
import { createTimedProvider } from './timed-provider.js'

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
    await pass(clock, 5_200)
    await vi.waitFor(() => expect(provider.requests).toHaveLength(1))
  })
})
