import { describe, expect, it } from 'vitest'
import { createBodyPump } from './create-body-pump.js'

const bytes = (text: string) => new TextEncoder().encode(text)
const textOf = (chunks: Uint8Array[] | undefined) =>
  chunks?.map((chunk) => new TextDecoder().decode(chunk)).join('')

describe('createBodyPump', () => {
  it('hands over chunks queued before a transport error, then the error', async () => {
    const failure = new TypeError('terminated')
    let fail: (() => void) | undefined
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('a'))
        controller.enqueue(bytes('b'))
        // Erroring a ReadableStream drops what is still queued in it: the pump has read it already.
        fail = () => controller.error(failure)
      },
    })
    const pump = createBodyPump(body)
    await new Promise((resolve) => setImmediate(resolve))
    fail!()
    expect(textOf(await pump.take())).toBe('ab')
    await expect(pump.take()).rejects.toBe(failure)
  })

  it('waits for data, then ends with undefined once the body is done', async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({
      start(value) {
        controller = value
      },
    })
    const pump = createBodyPump(body)
    const first = pump.take()
    controller.enqueue(bytes('x'))
    expect(textOf(await first)).toBe('x')
    controller.close()
    expect(await pump.take()).toBeUndefined()
  })

  it('drops queued data and releases the body on cancel', async () => {
    let cancelled: unknown
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('x'))
      },
      cancel(reason) {
        cancelled = reason
      },
    })
    const pump = createBodyPump(body)
    await new Promise((resolve) => setImmediate(resolve))
    pump.cancel('stop')
    expect(await pump.take()).toBeUndefined()
    expect(cancelled).toBe('stop')
  })

  it('reads at most its queue bound ahead: no read is pending while the queue is not taken', async () => {
    let pulled = 0
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled++
          if (pulled > 1024) controller.close()
          else controller.enqueue(new Uint8Array(1024))
        },
      },
      { highWaterMark: 0 },
    )
    const pump = createBodyPump(body)
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve))
    expect(pulled).toBeLessThanOrEqual(65)
    let taken = 0
    for (let chunks = await pump.take(); chunks; chunks = await pump.take()) taken += chunks.length
    expect(taken).toBe(1024)
  })
})
