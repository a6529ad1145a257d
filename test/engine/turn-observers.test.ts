/**
 * Turn observers (`createCharpipe({ observers })`), the last stage of a turn's event path: they see
 * every event of every turn that runs, completed and once it went out, `llm_done` last; a turn
 * started ahead of its input (an early transcript) only once its final input granted it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CharpipeConfigInput } from '../../src/config/schema.js'
import { type CharpipeEvent, createCharpipe, type ObservedTurn } from '../../src/index.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents } from '../../src/testing/turn-events.js'

let model: MockModelServer
beforeAll(async () => {
  model = await startMockModelServer()
})
afterAll(async () => {
  await model.close()
})
beforeEach(() => model.reset())

function configOver(overrides: CharpipeConfigInput = {}) {
  return makeConfig({
    llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0 },
    ...overrides,
  })
}

function recordingObserver() {
  const turns: ObservedTurn[] = []
  const events: CharpipeEvent[] = []
  const observer = (turn: ObservedTurn) => {
    turns.push(turn)
    return (event: CharpipeEvent) => events.push(event)
  }
  return { turns, events, observer }
}

describe('turn observers', () => {
  it('see each event of a turn as the caller got it, completed, llm_done last', async () => {
    const watched = recordingObserver()
    const charpipe = await createCharpipe(configOver(), { observers: [watched.observer] })
    model.script({ text: '你好。再见。' })
    const events = await collectEvents(charpipe.generate({ session: 'o', text: '嗨' }))
    expect(watched.events).toEqual(events)
    expect(watched.events.at(-1)?.type).toBe('llm_done')
    expect(watched.turns).toEqual([{ session: 'o', turn: events[0]!.turn, trigger: 'input' }])
    await charpipe.close()
  })

  it('an observer that returns nothing leaves the turn unobserved; others still see it', async () => {
    const watched = recordingObserver()
    const charpipe = await createCharpipe(configOver(), {
      observers: [() => undefined, watched.observer],
    })
    model.script({ text: '好。' })
    const events = await collectEvents(charpipe.generate({ session: 'n', text: '嗨' }))
    expect(watched.events).toEqual(events)
    await charpipe.close()
  })

  it('a turn started ahead of its input is observed only from its grant, under one turn id', async () => {
    const watched = recordingObserver()
    const charpipe = await createCharpipe(configOver(), { observers: [watched.observer] })
    model.script({ text: '我在。', firstTokenDelayMs: 50 })
    await collectEvents(charpipe.generate({ session: 'p', text: '在吗', preflight: true }))
    await expect.poll(() => model.requests.length, { timeout: 5000 }).toBe(1)
    await model.requests[0]!.closed
    expect(watched.events).toEqual([])
    const events = await collectEvents(charpipe.generate({ session: 'p', text: '在吗？' }))
    expect(watched.events).toEqual(events)
    expect(new Set(watched.events.map((event) => event.turn)).size).toBe(1)
    await charpipe.close()
  })
})
