import { describe, expect, it } from 'vitest'
import { createSliceQueue, SliceQueueFullError } from './create-slice-queue.js'
import { nextTurnOfEventLoop } from './next-turn-of-event-loop.js'

/** A clock that moves only when told; its timers fire once it has moved past them. */
function createManualClock() {
  let time = 0
  let timers: { at: number; callback: () => void }[] = []
  return {
    now: () => time,
    setTimer(callback: () => void, delayMs: number) {
      const timer = { at: time + delayMs, callback }
      timers.push(timer)
      return timer
    },
    clearTimer(timer: unknown) {
      timers = timers.filter((other) => other !== timer)
    },
    spend(ms: number) {
      time += ms
      const due = timers.filter((timer) => timer.at <= time)
      timers = timers.filter((timer) => timer.at > time)
      for (const timer of due) timer.callback()
    },
  }
}

describe('createSliceQueue', () => {
  it('runs nothing synchronously, and slices in the order they were queued', async () => {
    const queue = createSliceQueue({ clock: createManualClock() })
    const ran: number[] = []
    const results = [1, 2, 3].map((slice) => queue.run(() => ran.push(slice)))
    expect(ran).toEqual([])
    expect(queue.waiting).toBe(3)
    await Promise.all(results)
    expect(ran).toEqual([1, 2, 3])
    expect(queue.waiting).toBe(0)
  })

  it('hands each slice its result or its error', async () => {
    const queue = createSliceQueue({ clock: createManualClock() })
    await expect(queue.run(() => 'terms')).resolves.toBe('terms')
    await expect(
      queue.run(() => {
        throw new Error('the transaction failed')
      }),
    ).rejects.toThrow('the transaction failed')
  })

  it('stops a turn of the loop once its slices used the phase budget, and goes on in the next', async () => {
    const clock = createManualClock()
    const queue = createSliceQueue({ clock, minPhaseMs: 2, maxPhaseMs: 10 })
    const ran: number[] = []
    // 200 sessions' slices of 1 ms each, queued at once: not all in one turn of the loop.
    const all = Array.from({ length: 200 }, (_, slice) =>
      queue.run(() => {
        clock.spend(1)
        ran.push(slice)
      }),
    )
    await nextTurnOfEventLoop()
    // The loop had nothing else to do since the queue was made: the 2 ms floor.
    expect(ran).toHaveLength(2)
    // The rest of the loop took 12 ms: the next phase may take half of that, 6 ms.
    clock.spend(12)
    await nextTurnOfEventLoop()
    expect(ran).toHaveLength(8)
    // However long the rest took, a phase stops at 10 ms.
    clock.spend(500)
    await nextTurnOfEventLoop()
    expect(ran).toHaveLength(18)
    await Promise.all(all)
    expect(ran).toEqual(Array.from({ length: 200 }, (_, slice) => slice))
  })

  it('runs one slice per turn of the loop even when a single slice is longer than the budget', async () => {
    const clock = createManualClock()
    const queue = createSliceQueue({ clock })
    const ran: number[] = []
    const all = [1, 2].map((slice) =>
      queue.run(() => {
        clock.spend(30)
        ran.push(slice)
      }),
    )
    await nextTurnOfEventLoop()
    expect(ran).toEqual([1])
    await Promise.all(all)
    expect(ran).toEqual([1, 2])
  })

  describe('hold', () => {
    it('runs nothing while held, and the queued slices once released', async () => {
      const queue = createSliceQueue({ clock: createManualClock() })
      const release = queue.hold()
      const ran: number[] = []
      const done = queue.run(() => ran.push(1))
      await nextTurnOfEventLoop()
      await nextTurnOfEventLoop()
      expect(ran).toEqual([])
      release()
      release()
      await done
      expect(ran).toEqual([1])
    })

    it('waits for every hold to be released', async () => {
      const queue = createSliceQueue({ clock: createManualClock() })
      const releaseFirst = queue.hold()
      const releaseSecond = queue.hold()
      const ran: number[] = []
      const done = queue.run(() => ran.push(1))
      releaseFirst()
      await nextTurnOfEventLoop()
      await nextTurnOfEventLoop()
      expect(ran).toEqual([])
      releaseSecond()
      await done
      expect(ran).toEqual([1])
    })

    it('holds a slice back maxHoldMs at most', async () => {
      const clock = createManualClock()
      const queue = createSliceQueue({ clock, maxHoldMs: 100 })
      queue.hold()
      const ran: number[] = []
      const done = queue.run(() => ran.push(1))
      await nextTurnOfEventLoop()
      clock.spend(60)
      await nextTurnOfEventLoop()
      expect(ran).toEqual([])
      clock.spend(40)
      await done
      expect(ran).toEqual([1])
    })
  })

  it('refuses slices past maxWaiting at once, counted, and takes them again once it drains', async () => {
    const queue = createSliceQueue({ clock: createManualClock(), maxWaiting: 2 })
    const kept = [queue.run(() => 1), queue.run(() => 2)]
    await expect(queue.run(() => 3)).rejects.toBeInstanceOf(SliceQueueFullError)
    expect(queue.shed).toBe(1)
    expect(await Promise.all(kept)).toEqual([1, 2])
    await expect(queue.run(() => 4)).resolves.toBe(4)
    expect(queue.shed).toBe(1)
  })

  it('measures the time slices waited in it, and no more once it is empty', async () => {
    const clock = createManualClock()
    const queue = createSliceQueue({ clock })
    expect(queue.backlogMs()).toBe(0)
    const first = queue.run(() => clock.spend(30))
    clock.spend(5)
    expect(queue.backlogMs()).toBe(5)
    await first
    expect(queue.backlogMs()).toBe(35)
    clock.spend(100)
    expect(queue.backlogMs()).toBe(35)
  })
})
