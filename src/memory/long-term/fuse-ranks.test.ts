import { describe, expect, it } from 'vitest'
import { fuseRanks } from './fuse-ranks.js'

describe('fuseRanks', () => {
  it('ranks an item high in both lists above items high in one', () => {
    const fused = fuseRanks([
      ['a', 'b', 'c'],
      ['d', 'b', 'a'],
    ])
    const order = [...fused.entries()].sort((left, right) => right[1] - left[1]).map(([key]) => key)
    expect(order.slice(0, 2)).toEqual(['a', 'b'])
    expect(fused.get('a')).toBeCloseTo(1 / 61 + 1 / 63)
    expect(fused.get('d')).toBeCloseTo(1 / 61)
  })
})
