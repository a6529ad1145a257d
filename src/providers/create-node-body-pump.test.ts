import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createNodeBodyPump } from './create-node-body-pump.js'

const piece = new Uint8Array(1024)
const turnOfLoop = () => new Promise((resolve) => setImmediate(resolve))

/** A body that has `pieces` KiB to give at once; counts what the pump read from it. */
function fastBody(pieces: number) {
  let read = 0
  const stream = new Readable({
    read() {
      if (read === pieces) return this.push(null)
      read++
      this.push(piece)
    },
  })
  return { stream, read: () => read }
}

describe('createNodeBodyPump', () => {
  it('reads at most its queue bound ahead: the body is paused while the queue is not taken, and resumed when it is', async () => {
    const body = fastBody(1024)
    const pump = createNodeBodyPump(body.stream)
    for (let turn = 0; turn < 20; turn++) await turnOfLoop()
    // 64 KiB queued, plus what the stream itself reads ahead: its own high-water mark (16 KiB on
    // Node 20, 64 KiB from Node 22 on) and a piece. Unbounded, the whole 1,024 KiB is read.
    const streamReadsAheadKiB = body.stream.readableHighWaterMark / 1024
    expect(body.read()).toBeLessThanOrEqual(64 + streamReadsAheadKiB + 1)
    let taken = 0
    for (let chunks = await pump.take(); chunks; chunks = await pump.take()) taken += chunks.length
    expect(taken).toBe(1024)
  })

  it('lets a body paused at its bound flow to its end once released (the connection can be reused)', async () => {
    const body = fastBody(1024)
    const pump = createNodeBodyPump(body.stream, { releaseGraceMs: 60_000 })
    for (let turn = 0; turn < 20; turn++) await turnOfLoop()
    expect(body.stream.isPaused()).toBe(true)
    pump.release!()
    for (let turn = 0; turn < 40; turn++) await turnOfLoop()
    expect(body.stream.readableEnded).toBe(true)
    expect(body.read()).toBe(1024)
  })
})
