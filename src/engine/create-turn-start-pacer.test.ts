import { setImmediate } from 'node:timers'
import { describe, expect, it } from 'vitest'
import { createTurnStartPacer } from './create-turn-start-pacer.js'

/** One turn of the real event loop: the pacer's check-phase work queued before this has run. */
const turnOfLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

function setUp(budgetMs = 8) {
  const time = { now: 0 }
  const pacer = createTurnStartPacer({ budgetMs, now: () => time.now })
  const started: string[] = []
  /** Enters as `name`; records when it may start, then spends `workMs` of its synchronous work. */
  const start = (name: string, workMs = 0, signal?: AbortSignal) => {
    const go = () => {
      started.push(name)
      time.now += workMs
    }
    const waiting = pacer.enter(signal)
    if (waiting) return waiting.then(go)
    go()
    return undefined
  }
  return { time, pacer, started, start }
}

describe('createTurnStartPacer', () => {
  it('lets a start alone in its turn of the loop go at once, turn after turn', async () => {
    const { pacer, started, start } = setUp()
    for (const name of ['a', 'b', 'c']) {
      expect(start(name, 20)).toBeUndefined()
      await turnOfLoop()
    }
    expect(started).toEqual(['a', 'b', 'c'])
    expect(pacer.waiting).toBe(0)
  })

  it('holds the starts past the budget of one turn of the loop, and lets them go in order, a budget a turn', async () => {
    const { pacer, started, start } = setUp(8)
    expect(start('a', 5)).toBeUndefined()
    expect(start('b', 5)).toBeUndefined()
    // 10 ms since the first start of this turn of the loop: the rest wait.
    const c = start('c', 6)
    const d = start('d', 6)
    const e = start('e', 6)
    expect(started).toEqual(['a', 'b'])
    expect(pacer.waiting).toBe(3)
    // The check phase: c and d go (12 ms from c's start leaves no room for e), e in the next turn.
    await turnOfLoop()
    expect(started).toEqual(['a', 'b', 'c', 'd'])
    await turnOfLoop()
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e'])
    await Promise.all([c, d, e])
    expect(pacer.waiting).toBe(0)
  })

  it('puts a new start behind the ones waiting, even with room', async () => {
    const { started, start } = setUp(8)
    start('a', 10)
    const b = start('b', 0)
    expect(b).toBeDefined()
    // A new turn of the loop has room, but b waits still: c goes after it.
    const c = start('c', 0)
    expect(c).toBeDefined()
    await Promise.all([b, c])
    expect(started).toEqual(['a', 'b', 'c'])
  })

  it('lets a waiting start go at once when its turn is interrupted, and the next keeps its place', async () => {
    const { pacer, started, start } = setUp(8)
    start('a', 10)
    const controller = new AbortController()
    const b = start('b', 0, controller.signal)
    const c = start('c', 0)
    controller.abort()
    await b
    expect(started).toEqual(['a', 'b'])
    expect(pacer.waiting).toBe(1)
    await c
    expect(started).toEqual(['a', 'b', 'c'])
  })

  it('enters an already interrupted turn like any other', async () => {
    const { started, start } = setUp(8)
    start('a', 10)
    const controller = new AbortController()
    controller.abort()
    await start('b', 0, controller.signal)
    expect(started).toEqual(['a', 'b'])
  })
})
