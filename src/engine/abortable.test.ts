import { describe, expect, it } from 'vitest'
import { forEachUntilAborted } from './abortable.js'

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
