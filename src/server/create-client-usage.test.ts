import { describe, expect, it } from 'vitest'
import { createClientUsage } from './create-client-usage.js'

describe('createClientUsage', () => {
  it('keeps the time of each named client’s last request, forgetting the least recent past its bound', () => {
    let time = 1_000
    const usage = createClientUsage({ now: () => time, maxClients: 2 })
    expect(usage.lastUsedAt('airi')).toBeUndefined()
    usage.record('airi')
    time = 2_000
    usage.record('olv')
    time = 3_000
    usage.record('airi')
    expect(usage.lastUsedAt('airi')).toBe(3_000)
    expect(usage.lastUsedAt('olv')).toBe(2_000)
    usage.record('tavern')
    expect(usage.lastUsedAt('olv')).toBeUndefined()
    expect(usage.lastUsedAt('airi')).toBe(3_000)
  })
})
