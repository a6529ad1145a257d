import { describe, expect, it } from 'vitest'
import { captureLogger } from '../providers/test-helpers.js'
import { createBackgroundWork } from './background-work.js'

function deferred() {
  let resolve!: () => void
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

describe('createBackgroundWork', () => {
  it('runs tasks of one key in order and of different keys side by side', async () => {
    const work = createBackgroundWork(captureLogger().logger)
    const order: string[] = []
    const gate = deferred()
    work.schedule('a', async () => {
      await gate.promise
      order.push('a1')
    })
    work.schedule('a', async () => {
      order.push('a2')
    })
    work.schedule('b', async () => {
      order.push('b1')
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(order).toEqual(['b1'])
    expect(work.pending).toBe(2)
    gate.resolve()
    await work.drain()
    expect(order).toEqual(['b1', 'a1', 'a2'])
    expect(work.pending).toBe(0)
  })

  it('tells the tasks that the engine is closing once drain is called, not before', async () => {
    const work = createBackgroundWork(captureLogger().logger)
    const seen: boolean[] = []
    const gate = deferred()
    work.schedule('a', async () => {
      seen.push(work.closing.aborted)
      await gate.promise
      seen.push(work.closing.aborted)
    })
    await new Promise((resolve) => setImmediate(resolve))
    const drained = work.drain()
    gate.resolve()
    await drained
    expect(seen).toEqual([false, true])
  })

  it('logs a failed task and goes on with the next one', async () => {
    const log = captureLogger()
    const work = createBackgroundWork(log.logger)
    let ran = false
    work.schedule('a', async () => {
      throw new Error('boom')
    })
    work.schedule('a', async () => {
      ran = true
    })
    await work.drain()
    expect(ran).toBe(true)
    expect(log.lines.some((line) => line.msg === 'background work failed')).toBe(true)
  })
})
