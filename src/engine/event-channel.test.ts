import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createEventChannel } from './event-channel.js'

describe('createEventChannel', () => {
  it('hands out pushed values in order, before and after the consumer waits, then ends on close', async () => {
    const channel = createEventChannel<number>()
    channel.push(1)
    channel.push(2)
    const iterator = channel[Symbol.asyncIterator]()
    expect(await iterator.next()).toEqual({ value: 1, done: false })
    expect(await iterator.next()).toEqual({ value: 2, done: false })
    const waiting = iterator.next()
    channel.push(3)
    channel.push(4)
    channel.close()
    channel.push(5)
    expect(await waiting).toEqual({ value: 3, done: false })
    const rest: number[] = []
    for await (const value of { [Symbol.asyncIterator]: () => iterator }) rest.push(value)
    expect(rest).toEqual([4])
  })

  it('ends a waiting consumer on close', async () => {
    const channel = createEventChannel<string>()
    const iterator = channel[Symbol.asyncIterator]()
    const waiting = iterator.next()
    channel.close()
    expect(await waiting).toEqual({ value: undefined, done: true })
  })

  it('hands out nothing more once the consumer left the loop', async () => {
    const channel = createEventChannel<string>()
    channel.push('a')
    channel.push('b')
    const seen: string[] = []
    for await (const value of channel) {
      seen.push(value)
      break
    }
    channel.push('c')
    expect(seen).toEqual(['a'])
    expect(await channel[Symbol.asyncIterator]().next()).toEqual({ value: undefined, done: true })
  })

  it('serves next() calls made before the earlier ones settled, in the order they were made', async () => {
    // Any mix of pushes, next() calls not awaited and a close: the values come out in order, every
    // call settles, and the calls past the end get done.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('push', 'next'), { maxLength: 40 }), async (steps) => {
        const channel = createEventChannel<number>()
        const iterator = channel[Symbol.asyncIterator]()
        const calls: Promise<IteratorResult<number>>[] = []
        let pushed = 0
        for (const step of steps) {
          if (step === 'push') channel.push(pushed++)
          else calls.push(iterator.next())
        }
        channel.close()
        const results = await Promise.all(calls)
        const values = results.filter((result) => !result.done).map((result) => result.value)
        expect(values).toEqual([...Array(Math.min(pushed, calls.length)).keys()])
        expect(results.slice(values.length).every((result) => result.done)).toBe(true)
      }),
    )
  })
})
