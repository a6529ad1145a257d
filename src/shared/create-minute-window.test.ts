import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMinuteWindow, minuteMs } from './create-minute-window.js'

/** A window on a clock the test moves. */
function createClockedWindow(start = 0) {
  const clock = { time: start }
  return { clock, window: createMinuteWindow({ now: () => clock.time }) }
}

describe('createMinuteWindow', () => {
  it('takes up to the limit in a minute, then says when the oldest take leaves', () => {
    const { clock, window } = createClockedWindow(1_000)
    expect(window.take(2)).toEqual({ ok: true })
    clock.time += 10_000
    expect(window.take(2)).toEqual({ ok: true })
    clock.time += 5_000
    expect(window.take(2)).toEqual({ ok: false, retryAfterMs: minuteMs - 15_000 })
    expect(window.size()).toBe(2)
    clock.time += minuteMs - 15_000 - 1
    expect(window.take(2).ok).toBe(false)
    clock.time += 1
    expect(window.take(2)).toEqual({ ok: true })
  })

  it('counts nothing for a refused take', () => {
    const { clock, window } = createClockedWindow()
    expect(window.take(1).ok).toBe(true)
    for (let index = 0; index < 5; index++) expect(window.take(1).ok).toBe(false)
    clock.time = minuteMs
    expect(window.size()).toBe(0)
    expect(window.take(1).ok).toBe(true)
  })

  it('waits for as many takes to leave as a lowered limit needs', () => {
    const { clock, window } = createClockedWindow()
    for (const time of [0, 1_000, 2_000, 3_000]) {
      clock.time = time
      expect(window.take(4).ok).toBe(true)
    }
    clock.time = 4_000
    // Three must leave before one more fits under a limit of 2: the last of them was taken at 2 000.
    expect(window.take(2)).toEqual({ ok: false, retryAfterMs: 2_000 + minuteMs - 4_000 })
  })

  it('never takes under a limit of 0, and says to come back in a minute', () => {
    const { window } = createClockedWindow()
    expect(window.take(0)).toEqual({ ok: false, retryAfterMs: minuteMs })
    expect(window.size()).toBe(0)
  })

  it('never holds more than the limit in any minute, and its retryAfter is exact', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 40_000 }), { minLength: 1, maxLength: 60 }),
        (limit, steps) => {
          const { clock, window } = createClockedWindow()
          const taken: number[] = []
          for (const step of steps) {
            clock.time += step
            const result = window.take(limit)
            if (result.ok) {
              taken.push(clock.time)
              continue
            }
            // Exact: refused one millisecond before, admitted at the moment it names (tried on
            // copies of the same history, so the run goes on unchanged).
            const replay = (at: number) => {
              const copy = createClockedWindow()
              for (const time of taken) {
                copy.clock.time = time
                copy.window.take(limit)
              }
              copy.clock.time = at
              return copy.window.take(limit).ok
            }
            expect(result.retryAfterMs).toBeGreaterThan(0)
            expect(replay(clock.time + result.retryAfterMs - 1)).toBe(false)
            expect(replay(clock.time + result.retryAfterMs)).toBe(true)
          }
          // Any span of a minute holds at most `limit` takes: take i and take i + limit are a
          // full minute apart.
          for (let index = limit; index < taken.length; index++)
            expect(taken[index]! - taken[index - limit]!).toBeGreaterThanOrEqual(minuteMs)
        },
      ),
    )
  })

  it('holds to a limit that changes between takes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: 1, max: 5 })), {
          maxLength: 60,
        }),
        (steps) => {
          const { clock, window } = createClockedWindow()
          const taken: number[] = []
          for (const [step, limit] of steps) {
            clock.time += step
            if (window.take(limit).ok) {
              taken.push(clock.time)
              // The minute that ends with this take holds no more than the limit it was taken under.
              expect(taken.filter((time) => time > clock.time - minuteMs).length).toBeLessThanOrEqual(limit)
            }
          }
        },
      ),
    )
  })
})
