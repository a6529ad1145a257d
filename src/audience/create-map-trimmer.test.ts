import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMapTrimmer } from './create-map-trimmer.js'

/** The plain way: a fresh iterator for every entry dropped. */
function trimWithFreshIterator(map: Map<string, number>, limit: number): void {
  while (map.size > limit) map.delete(map.keys().next().value as string)
}

describe('createMapTrimmer', () => {
  it('keeps the most recent entries of a window, across many rebuilds of the table', () => {
    const map = new Map<string, number>()
    const trim = createMapTrimmer({ map, limit: 1000 })
    for (let index = 0; index < 50_000; index++) {
      map.set(`id${index}`, index)
      trim()
    }
    expect([...map.keys()]).toEqual(Array.from({ length: 1000 }, (_, index) => `id${49_000 + index}`))
  })

  it('drops what the plain way drops when entries are touched (moved to the end) and removed', () => {
    const operation = fc.record({
      kind: fc.constantFrom('add', 'touch', 'remove'),
      key: fc.integer({ max: 40, min: 0 }),
    })
    fc.assert(
      fc.property(
        fc.integer({ max: 12, min: 0 }),
        fc.array(operation, { maxLength: 400 }),
        (limit, operations) => {
          const plain = new Map<string, number>()
          const kept = new Map<string, number>()
          const trim = createMapTrimmer({ map: kept, limit })
          for (const [step, { kind, key }] of operations.entries()) {
            for (const map of [plain, kept]) {
              const name = `k${key}`
              if (kind === 'remove') map.delete(name)
              else if (kind === 'touch' && map.has(name)) map.delete(name)
              if (kind !== 'remove') map.set(name, step)
            }
            trimWithFreshIterator(plain, limit)
            trim()
            expect([...kept]).toEqual([...plain])
          }
        },
      ),
    )
  })

  it('starts again from the front of a Map cleared behind its back', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ])
    const trim = createMapTrimmer({ map, limit: 1 })
    trim()
    map.clear()
    for (const key of ['x', 'y', 'z']) map.set(key, 0)
    trim()
    expect([...map.keys()]).toEqual(['z'])
  })
})
