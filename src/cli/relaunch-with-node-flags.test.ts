import { describe, expect, it } from 'vitest'
import { needsServeNodeFlags, serveAllocatorEnvironment, serveNodeFlags } from './relaunch-with-node-flags.js'

describe('needsServeNodeFlags', () => {
  it('is true for a plain node, also with other flags (a maximum heap size is still obeyed)', () => {
    expect(needsServeNodeFlags([])).toBe(true)
    expect(needsServeNodeFlags(['--import', 'tsx', '--max-old-space-size=4096'])).toBe(true)
  })

  it('is false once the flags are there, or when the user sized the start of the heap', () => {
    expect(needsServeNodeFlags(serveNodeFlags)).toBe(false)
    expect(needsServeNodeFlags(['--initial_old_space_size=64'])).toBe(false)
    expect(needsServeNodeFlags(['--enable-source-maps', '--initial-old-space-size=32'])).toBe(false)
    expect(needsServeNodeFlags(['--initial-heap-size=48'])).toBe(false)
  })
})

describe('serveAllocatorEnvironment', () => {
  it("sets glibc's trim threshold on Linux when the user chose no allocator setting", () => {
    expect(serveAllocatorEnvironment({ PATH: '/usr/bin' }, 'linux')).toEqual({
      MALLOC_TRIM_THRESHOLD_: '131072',
    })
  })

  it("keeps the user's own choice, and sets nothing elsewhere", () => {
    expect(serveAllocatorEnvironment({ MALLOC_ARENA_MAX: '2' }, 'linux')).toEqual({})
    expect(serveAllocatorEnvironment({ MALLOC_TRIM_THRESHOLD_: '0' }, 'linux')).toEqual({})
    expect(serveAllocatorEnvironment({ LD_PRELOAD: 'libjemalloc.so.2' }, 'linux')).toEqual({})
    expect(serveAllocatorEnvironment({}, 'darwin')).toEqual({})
  })
})
