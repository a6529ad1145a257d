import { describe, expect, it } from 'vitest'
import { createChunkQueue } from './create-chunk-queue.js'

const chunkOf = (bytes: number) => new Uint8Array(bytes)

describe('createChunkQueue', () => {
  it('asks the reader to pause once it holds its bound, and has room again when taken', async () => {
    const queue = createChunkQueue({ maxQueuedBytes: 100 })
    expect(queue.push(chunkOf(60))).toBe(true)
    expect(queue.push(chunkOf(60))).toBe(false)
    expect(queue.queuedBytes).toBe(120)
    let room = 0
    queue.onceRoom(() => room++)
    expect(room).toBe(0)
    expect((await queue.take())?.length).toBe(2)
    expect(room).toBe(1)
    expect(queue.queuedBytes).toBe(0)
    // Once: a later take does not call it again.
    queue.push(chunkOf(1))
    await queue.take()
    expect(room).toBe(1)
  })

  it('has room at once below its bound, and when it is cleared or ended', () => {
    const queue = createChunkQueue({ maxQueuedBytes: 10 })
    let room = 0
    queue.onceRoom(() => room++)
    expect(room).toBe(1)
    queue.push(chunkOf(10))
    queue.onceRoom(() => room++)
    queue.clear()
    expect(room).toBe(2)
    queue.push(chunkOf(10))
    queue.onceRoom(() => room++)
    queue.end()
    expect(room).toBe(3)
  })
})
