import { describe, expect, it } from 'vitest'
import { AbortedError } from '../shared/errors.js'
import { forEachUntilAborted } from './abortable.js'
import { createReplyReadPacer } from './create-reply-read-pacer.js'

/**
 * A source that yields `values`, then hangs until told to return; records that it was. `onHang`
 * runs when it is asked for the value it will never give.
 */
function createHangingSource(values: number[], onHang: () => void = () => {}) {
  const state = { returned: false }
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]() {
      let index = 0
      return {
        next: () =>
          index < values.length
            ? Promise.resolve({ value: values[index++]!, done: false })
            : new Promise<IteratorResult<number>>(() => onHang()),
        return: () => {
          state.returned = true
          return Promise.resolve({ value: undefined, done: true })
        },
      }
    },
  }
  return { iterable, state }
}

describe('forEachUntilAborted', () => {
  it('visits every item of a source that ends', async () => {
    const seen: number[] = []
    async function* source() {
      yield 1
      yield 2
    }
    await forEachUntilAborted(source(), new AbortController().signal, (value) => seen.push(value))
    expect(seen).toEqual([1, 2])
  })

  it('rejects at once when the signal aborts while the source hangs, and tells it to stop', async () => {
    const controller = new AbortController()
    const { iterable, state } = createHangingSource([1, 2], () => controller.abort('stop'))
    const seen: number[] = []
    const running = forEachUntilAborted(iterable, controller.signal, (value) => seen.push(value))
    await expect(running).rejects.toMatchObject({ code: 'aborted' })
    expect(seen).toEqual([1, 2])
    expect(state.returned).toBe(true)
  })

  it('rejects without reading when the signal has already aborted', async () => {
    const { iterable, state } = createHangingSource([1])
    const controller = new AbortController()
    controller.abort()
    const seen: number[] = []
    await expect(
      forEachUntilAborted(iterable, controller.signal, (value) => seen.push(value)),
    ).rejects.toMatchObject({ code: 'aborted' })
    expect(seen).toEqual([])
    expect(state.returned).toBe(true)
  })

  it('passes on what the visitor throws and tells the source to stop', async () => {
    const { iterable, state } = createHangingSource([1, 2])
    const failure = new Error('visitor failed')
    await expect(
      forEachUntilAborted(iterable, new AbortController().signal, () => {
        throw failure
      }),
    ).rejects.toBe(failure)
    expect(state.returned).toBe(true)
  })

  it('lets the event loop run during a long burst of items that are ready at once', async () => {
    async function* burst() {
      for (let index = 0; index < 2000; index++) yield index
    }
    let visited = 0
    let visitedWhenOtherWorkRan = -1
    setImmediate(() => {
      visitedWhenOtherWorkRan = visited
    })
    await forEachUntilAborted(burst(), new AbortController().signal, () => {
      visited++
      // Work enough per item that the whole burst takes far longer than one busy stretch.
      const until = performance.now() + 0.05
      while (performance.now() < until) {}
    })
    expect(visited).toBe(2000)
    // Other work ran in the middle of the burst, not only after it.
    expect(visitedWhenOtherWorkRan).toBeGreaterThan(0)
    expect(visitedWhenOtherWorkRan).toBeLessThan(2000)
  })
})

/** A source read a batch at a time: `batches`, then the end; records the calls it got. */
function createBatchSource(batches: (number[] | Error)[]) {
  const calls = { next: 0, nextBatch: 0, returned: false }
  const iterator = {
    next: () => {
      calls.next++
      return Promise.resolve<IteratorResult<number>>({ value: undefined, done: true })
    },
    nextBatch: () => {
      calls.nextBatch++
      const batch = batches.shift()
      return batch instanceof Error ? Promise.reject(batch) : Promise.resolve(batch)
    },
    return: () => {
      calls.returned = true
      return Promise.resolve<IteratorResult<number>>({ value: undefined, done: true })
    },
  }
  const iterable: AsyncIterable<number> = { [Symbol.asyncIterator]: () => iterator }
  return { iterable, calls }
}

/** How many items `seen` holds at each check phase of the event loop from now, until it holds `total`. */
function countAtEachCheckPhase(seen: readonly unknown[], total: number): number[] {
  const counts: number[] = []
  const watch = () =>
    setImmediate(() => {
      counts.push(seen.length)
      if (seen.length < total) watch()
    })
  watch()
  return counts
}

describe('forEachUntilAborted over a source read a batch at a time', () => {
  it('visits every item of every batch in order, one promise per batch', async () => {
    const { iterable, calls } = createBatchSource([[1, 2, 3], [4], [5, 6]])
    const seen: number[] = []
    await forEachUntilAborted(iterable, new AbortController().signal, (value) => seen.push(value))
    expect(seen).toEqual([1, 2, 3, 4, 5, 6])
    expect(calls).toEqual({ next: 0, nextBatch: 4, returned: false })
  })

  it('stops at once when a visit aborts in the middle of a batch: no item after it', async () => {
    const controller = new AbortController()
    const { iterable, calls } = createBatchSource([[1, 2, 3, 4], [5]])
    const seen: number[] = []
    const running = forEachUntilAborted(iterable, controller.signal, (value) => {
      seen.push(value)
      if (value === 2) controller.abort('barge-in')
    })
    await expect(running).rejects.toMatchObject({ code: 'aborted' })
    expect(seen).toEqual([1, 2])
    expect(calls.nextBatch).toBe(1)
    expect(calls.returned).toBe(true)
  })

  it('passes on what a visit throws in the middle of a batch and tells the source to stop', async () => {
    const { iterable, calls } = createBatchSource([[1, 2, 3]])
    const failure = new Error('visitor failed')
    const seen: number[] = []
    await expect(
      forEachUntilAborted(iterable, new AbortController().signal, (value) => {
        seen.push(value)
        if (value === 2) throw failure
      }),
    ).rejects.toBe(failure)
    expect(seen).toEqual([1, 2])
    expect(calls.returned).toBe(true)
  })

  it('lets the event loop run inside a batch whose items take longer than one busy stretch', async () => {
    // Each item takes 3 ms on the injected clock (a joined delta of thousands of characters).
    let time = 0
    const { iterable } = createBatchSource([[1, 2, 3, 4, 5]])
    const seen: number[] = []
    let seenWhenOtherWorkRan = -1
    setImmediate(() => {
      seenWhenOtherWorkRan = seen.length
    })
    await forEachUntilAborted(
      iterable,
      new AbortController().signal,
      (value) => {
        seen.push(value)
        time += 3
      },
      { now: () => time },
    )
    expect(seen).toEqual([1, 2, 3, 4, 5])
    // 6 ms after the second item, and the third would take 3 more: past the 6 ms stretch, it waits.
    expect(seenWhenOtherWorkRan).toBe(2)
  })

  it("runs the loop's due timers between two busy stretches of one reply", async () => {
    let time = 0
    const { iterable } = createBatchSource([[1, 2, 3, 4, 5]])
    const seen: number[] = []
    let seenWhenTimerRan = -1
    setTimeout(() => {
      seenWhenTimerRan = seen.length
    }, 1)
    await forEachUntilAborted(
      iterable,
      new AbortController().signal,
      (value) => {
        seen.push(value)
        // The first visit holds the loop past the timer's due time (the real clock, which timers
        // read); the stretch is counted on the injected one.
        if (value === 1) {
          const due = performance.now() + 2
          while (performance.now() < due) {}
        }
        time += 3
      },
      { now: () => time },
    )
    expect(seen).toEqual([1, 2, 3, 4, 5])
    // The stretch was cut after the second item; the timer came before the third. Resumed in the
    // same turn's check phase, two stretches would have held the timer.
    expect(seenWhenTimerRan).toBe(2)
  })

  it('makes a batch ready at once after a full stretch wait, and gives one that came after a rest a stretch of its own', async () => {
    let time = 0
    const batches = [[1], [2], [3], [4, 5, 6]]
    let reads = 0
    const iterator = {
      next: () => Promise.resolve<IteratorResult<number>>({ value: undefined, done: true }),
      nextBatch: () => {
        // The fourth read comes after the network made the loop wait 5 ms.
        if (++reads === 4) time += 5
        return Promise.resolve(batches.shift())
      },
    }
    const seen: number[] = []
    const otherWork = countAtEachCheckPhase(seen, 6)
    await forEachUntilAborted(
      { [Symbol.asyncIterator]: () => iterator },
      new AbortController().signal,
      (value) => {
        seen.push(value)
        time += 3
      },
      { now: () => time },
    )
    expect(seen).toEqual([1, 2, 3, 4, 5, 6])
    // 1 and 2 were read back to back (6 ms): the third batch, ready at once, would end past 6 ms
    // and waits for the loop's next poll (two check phases). 4, 5 and 6 came after a rest: a stretch
    // of their own, cut before 6; the end of the source, 3 ms into a stretch, does not wait.
    expect(otherWork).toEqual([2, 2, 5, 5])
  })

  it('lets the end of a reply that comes after a full stretch wait for the loop too', async () => {
    let time = 0
    const { iterable } = createBatchSource([[1]])
    const seen: number[] = []
    const otherWork = countAtEachCheckPhase(seen, 2)
    await forEachUntilAborted(
      iterable,
      new AbortController().signal,
      (value) => {
        seen.push(value)
        time += 6
      },
      { now: () => time },
    )
    seen.push(2)
    // The end, read at once after a visit of 6 ms, is taken to cost as much: 12 ms would be past the
    // stretch, so the turn's end waited for the loop's next poll (two check phases).
    expect(otherWork).toEqual([1, 1])
  })

  it('rejects with the failure of a batch read after the items read before it', async () => {
    const failure = new Error('cut')
    const { iterable } = createBatchSource([[1, 2], failure])
    const seen: number[] = []
    await expect(
      forEachUntilAborted(iterable, new AbortController().signal, (value) => seen.push(value)),
    ).rejects.toBe(failure)
    expect(seen).toEqual([1, 2])
  })
})

/**
 * Visits `batches` with a pacer whose share is 4 ms a turn of the loop, each item taking 2 ms on
 * the injected clock, after other turns spent `spentBefore` ms of this turn of the loop; returns
 * how many items were seen at each check phase.
 */
async function visitPaced(batches: number[][], spentBefore = 0): Promise<number[]> {
  let time = 0
  const pacer = createReplyReadPacer({ budgetMs: 4 })
  const all = batches.flat()
  const seen: number[] = []
  const seenAtCheckPhase = countAtEachCheckPhase(seen, all.length)
  if (spentBefore) pacer.spend(spentBefore)
  await forEachUntilAborted(
    createBatchSource(batches).iterable,
    new AbortController().signal,
    (value) => {
      seen.push(value)
      time += 2
    },
    { now: () => time, pacer },
  )
  expect(seen).toEqual(all)
  return seenAtCheckPhase
}

describe('forEachUntilAborted with a pacer shared by the turns that stream', () => {
  it('visits batches while the share has room, and the rest in later turns of the event loop', async () => {
    const seenAtCheckPhase = await visitPaced([[1], [2], [3], [4], [5]])
    // Two batches a turn of the loop (4 ms spends the 4 ms share): 2 before the first check phase,
    // 4 before the second.
    expect(seenAtCheckPhase.slice(0, 2)).toEqual([2, 4])
  })

  it('counts nothing for an empty batch, even the first of a turn', async () => {
    // Other turns spent this turn of the loop's share: the empty batch waits for the check phase,
    // which renews the share: 1 and 2 spend it (4 ms), 3 waits for the next one.
    const seenAtCheckPhase = await visitPaced([[], [1], [2], [3]], 10)
    expect(seenAtCheckPhase.slice(0, 2)).toEqual([0, 2])
  })

  it('ends at once when the turn is interrupted while its batch waits for the share, the batch not visited', async () => {
    const pacer = createReplyReadPacer({ budgetMs: 4 })
    // Other turns spent this turn of the loop's share.
    pacer.spend(10)
    const { iterable, calls } = createBatchSource([[1, 2]])
    const controller = new AbortController()
    const seen: number[] = []
    const done = forEachUntilAborted(iterable, controller.signal, (value) => seen.push(value), {
      now: () => 0,
      pacer,
    })
    // The batch is read (a promise callback) and waits for the check phase.
    await Promise.resolve()
    await Promise.resolve()
    controller.abort()
    await expect(done).rejects.toBeInstanceOf(AbortedError)
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(seen).toEqual([])
    expect(calls.nextBatch).toBe(1)
  })
})
