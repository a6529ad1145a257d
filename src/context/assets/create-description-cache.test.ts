import { describe, expect, it } from 'vitest'
import { createDescriptionCache, hashImage } from './create-description-cache.js'

describe('createDescriptionCache', () => {
  it('holds large images by their hash: 40 images of 4 MB cost 40 short keys', () => {
    const cache = createDescriptionCache(1_000_000)
    for (let index = 0; index < 40; index++) {
      const dataUri = `data:image/png;base64,${String(index).padStart(4, '0')}${'A'.repeat(4 * 1024 * 1024)}`
      cache.set(hashImage(dataUri), `图${index}`)
    }
    expect(cache.size).toBeLessThan(40 * 100)
    const again = `data:image/png;base64,0007${'A'.repeat(4 * 1024 * 1024)}`
    expect(cache.get(hashImage(again))).toBe('图7')
  })

  it('stays within its bound, dropping the least recently used first', () => {
    const cache = createDescriptionCache(300)
    const keys = Array.from({ length: 6 }, (_, index) => hashImage(`image ${index}`))
    cache.set(keys[0]!, 'x'.repeat(30))
    cache.set(keys[1]!, 'x'.repeat(30))
    cache.set(keys[2]!, 'x'.repeat(30))
    expect(cache.get(keys[0]!)).toBeDefined()
    cache.set(keys[3]!, 'x'.repeat(30))
    expect(cache.size).toBeLessThanOrEqual(300)
    expect(cache.get(keys[1]!)).toBeUndefined()
    expect(cache.get(keys[0]!)).toBeDefined()
    cache.set(keys[4]!, 'y'.repeat(1000))
    expect(cache.get(keys[4]!)).toBeUndefined()
  })
})
