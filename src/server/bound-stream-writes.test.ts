import type { SSEStreamingApi } from 'hono/streaming'
import { describe, expect, it } from 'vitest'
import { boundStreamWrites, type StreamMessage } from './bound-stream-writes.js'

/** A stream whose writes complete only when the test lets them (a reader that reads, or does not). */
function createFakeStream() {
  const written: StreamMessage[] = []
  const pending: (() => void)[] = []
  const stream = {
    aborted: false,
    abort() {
      stream.aborted = true
    },
    writeSSE(message: StreamMessage) {
      written.push(message)
      return new Promise<void>((resolve) => pending.push(resolve))
    },
  }
  /** The reader takes what the stream was handed so far. */
  const read = async () => {
    while (pending.length > 0) {
      pending.shift()!()
      await Promise.resolve()
      await Promise.resolve()
    }
  }
  return { stream: stream as unknown as SSEStreamingApi & { aborted: boolean }, written, read }
}

const message = (index: number, size = 100): StreamMessage => ({
  event: 'llm_chunk',
  data: `${index}`.padEnd(size),
})

describe('boundStreamWrites', () => {
  it('hands every message to the stream in order, never making the writer wait for the reader', async () => {
    const { stream, written, read } = createFakeStream()
    let overflows = 0
    const reader = boundStreamWrites(stream, { maxBufferedBytes: 10_000, onOverflow: () => overflows++ })
    for (let index = 0; index < 20; index++) await reader.writeSSE(message(index))
    // Twenty messages queued while the reader has taken none; the writer went on.
    expect(reader.bufferedBytes).toBeGreaterThan(20 * 100)
    let flushed = false
    const done = reader.flushed().then(() => {
      flushed = true
    })
    expect(flushed).toBe(false)
    for (let round = 0; round < 20; round++) await read()
    await done
    expect(written.map((each) => each.data.trim())).toEqual(
      Array.from({ length: 20 }, (_, index) => `${index}`),
    )
    expect(reader.bufferedBytes).toBe(0)
    expect(overflows).toBe(0)
    expect(stream.aborted).toBe(false)
  })

  it('lets go of a reader that stops, once past the bound: what waits is dropped and the stream aborted', async () => {
    const { stream, written } = createFakeStream()
    const overflows: number[] = []
    const reader = boundStreamWrites(stream, {
      maxBufferedBytes: 5_000,
      onOverflow: (bytes) => overflows.push(bytes),
    })
    for (let index = 0; index < 1_000; index++) await reader.writeSSE(message(index))
    expect(overflows).toHaveLength(1)
    expect(overflows[0]).toBeGreaterThan(5_000)
    // Past the bound by one message at most: its text and its objects.
    expect(overflows[0]).toBeLessThanOrEqual(5_000 + 600)
    expect(stream.aborted).toBe(true)
    expect(reader.bufferedBytes).toBe(0)
    // Only the first message reached the stream (it never completed); nothing after the bound.
    expect(written).toHaveLength(1)
    await reader.flushed()
  })

  it('keeps a reader that lags but reads under the bound', async () => {
    const { stream, read } = createFakeStream()
    let overflows = 0
    const reader = boundStreamWrites(stream, { maxBufferedBytes: 4_000, onOverflow: () => overflows++ })
    for (let index = 0; index < 200; index++) {
      await reader.writeSSE(message(index))
      if (index % 5 === 4) await read()
    }
    await read()
    expect(overflows).toBe(0)
    expect(stream.aborted).toBe(false)
  })

  it('tells when a message has gone to the stream, not when it was queued', async () => {
    const { stream, read } = createFakeStream()
    const reader = boundStreamWrites(stream, { maxBufferedBytes: 10_000, onOverflow: () => {} })
    const written: number[] = []
    for (let index = 0; index < 3; index++) await reader.writeSSE(message(index), () => written.push(index))
    expect(written).toEqual([])
    await read()
    expect(written).toEqual([0, 1, 2])
  })

  it('drops what is written after the stream was aborted (the client left)', async () => {
    const { stream, written } = createFakeStream()
    const reader = boundStreamWrites(stream, { maxBufferedBytes: 5_000, onOverflow: () => {} })
    stream.abort()
    await reader.writeSSE(message(0))
    expect(written).toEqual([])
    expect(reader.bufferedBytes).toBe(0)
  })
})
