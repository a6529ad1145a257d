import { setImmediate } from 'node:timers'
import { describe, expect, it } from 'vitest'
import { createReplyReadPacer, unpacedReplyReads } from './create-reply-read-pacer.js'

/** One turn of the real event loop: the pacer's check-phase work queued before this has run. */
const turnOfLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A read's visit as `forEachUntilAborted` makes it: asks for room, else waits and asks again. */
function setUp(budgetMs = 4) {
  const pacer = createReplyReadPacer({ budgetMs })
  const visited: string[] = []
  const visit = (name: string, spendMs: number) => {
    if (!pacer.hasRoom()) return pacer.later(() => visit(name, spendMs))
    visited.push(name)
    pacer.spend(spendMs)
  }
  return { pacer, visited, visit }
}

describe('createReplyReadPacer', () => {
  it('visits at once while a turn of the loop spends less than the share, turn after turn', async () => {
    const { visited, visit } = setUp(4)
    for (const name of ['a', 'b', 'c']) {
      visit(name, 3)
      await turnOfLoop()
    }
    expect(visited).toEqual(['a', 'b', 'c'])
  })

  it('holds the reads past the share until the check phase, and visits them a share a turn of the loop', async () => {
    const { visited, visit } = setUp(4)
    visit('a', 3)
    visit('b', 3)
    // 6 ms spent in this turn of the loop: the rest wait.
    visit('c', 3)
    visit('d', 3)
    visit('e', 3)
    expect(visited).toEqual(['a', 'b'])
    // The check phase renews the share: c and d (6 ms) spend it, e waits for the next turn.
    await turnOfLoop()
    expect(visited).toEqual(['a', 'b', 'c', 'd'])
    await turnOfLoop()
    expect(visited).toEqual(['a', 'b', 'c', 'd', 'e'])
  })

  it('renews the share in the check phase, before the reads that wait there', async () => {
    const { pacer, visited, visit } = setUp(4)
    pacer.spend(10)
    visit('a', 1)
    expect(pacer.hasRoom()).toBe(false)
    await turnOfLoop()
    expect(visited).toEqual(['a'])
    expect(pacer.hasRoom()).toBe(true)
  })

  it('an engine whose caller drives time visits every read at once', () => {
    const visited: string[] = []
    unpacedReplyReads.spend(1_000)
    expect(unpacedReplyReads.hasRoom()).toBe(true)
    unpacedReplyReads.later(() => visited.push('a'))
    expect(visited).toEqual(['a'])
  })
})
