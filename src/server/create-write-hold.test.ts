import { Writable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createWriteHold } from './create-write-hold.js'

/** A socket that records each write it makes (one `_writev` is one syscall on a `net.Socket`). */
function createRecordingSocket() {
  const writes: string[][] = []
  const socket = new Writable({
    highWaterMark: 64,
    decodeStrings: false,
    writev(chunks, callback) {
      writes.push(chunks.map(({ chunk }) => String(chunk)))
      callback()
    },
    write(chunk, _encoding, callback) {
      writes.push([String(chunk)])
      callback()
    },
  })
  return { socket, writes, flat: () => writes.flat() }
}

/** The release is run by hand: the test is the event loop's check phase. */
function createManualSchedule() {
  const pending: (() => void)[] = []
  return {
    schedule: (release: () => void) => void pending.push(release),
    get pending() {
      return pending.length
    },
    runAll() {
      for (const release of pending.splice(0)) release()
    },
  }
}

describe('createWriteHold', () => {
  it('sends the frames of one turn of the loop in one write, in order, at the release', () => {
    const loop = createManualSchedule()
    const hold = createWriteHold({ schedule: loop.schedule })
    const { socket, writes } = createRecordingSocket()
    for (const frame of ['a', 'b', 'c']) {
      hold.hold(socket)
      socket.write(frame)
    }
    expect(writes).toEqual([])
    loop.runAll()
    expect(writes).toEqual([['a', 'b', 'c']])
  })

  it('counts what it holds as buffered, as the slow-reader bound reads it', () => {
    const loop = createManualSchedule()
    const hold = createWriteHold({ schedule: loop.schedule })
    const { socket } = createRecordingSocket()
    hold.hold(socket)
    socket.write('x'.repeat(100))
    expect(socket.writableLength).toBe(100)
    expect(socket.writableNeedDrain).toBe(true)
    loop.runAll()
    expect(socket.writableLength).toBe(0)
  })

  it('uses one release for all sockets, each with its own write', () => {
    const loop = createManualSchedule()
    const hold = createWriteHold({ schedule: loop.schedule })
    const first = createRecordingSocket()
    const second = createRecordingSocket()
    for (const { socket } of [first, second, first, second]) {
      hold.hold(socket)
      socket.write('frame')
    }
    expect(loop.pending).toBe(1)
    loop.runAll()
    expect(first.writes).toEqual([['frame', 'frame']])
    expect(second.writes).toEqual([['frame', 'frame']])
  })

  it('sends at once on release, and holds what follows until the loop releases it', () => {
    const loop = createManualSchedule()
    const hold = createWriteHold({ schedule: loop.schedule })
    const { socket, writes } = createRecordingSocket()
    hold.hold(socket)
    socket.write('chunk')
    socket.write('done')
    hold.release(socket)
    expect(writes).toEqual([['chunk', 'done']])
    hold.hold(socket)
    socket.write('next')
    expect(writes).toHaveLength(1)
    loop.runAll()
    expect(writes).toEqual([['chunk', 'done'], ['next']])
  })

  it('sends what it holds before the end when the socket is ended mid-batch', async () => {
    const loop = createManualSchedule()
    const hold = createWriteHold({ schedule: loop.schedule })
    const { socket, flat } = createRecordingSocket()
    hold.hold(socket)
    socket.write('a')
    socket.write('b')
    const finished = new Promise((resolve) => socket.once('finish', resolve))
    socket.end('close')
    await finished
    expect(flat()).toEqual(['a', 'b', 'close'])
    // The release that comes later finds nothing held and changes nothing.
    loop.runAll()
    expect(flat()).toEqual(['a', 'b', 'close'])
  })

  it('keeps every socket’s frames whole and in order, whatever the holds and releases', () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant('write' as const),
        socket: fc.nat(2),
        text: fc.string({ minLength: 1 }),
      }),
      fc.record({ kind: fc.constant('release' as const), socket: fc.nat(2) }),
      fc.record({ kind: fc.constant('loop' as const) }),
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const loop = createManualSchedule()
        const hold = createWriteHold({ schedule: loop.schedule })
        const sockets = [createRecordingSocket(), createRecordingSocket(), createRecordingSocket()]
        const expected: string[][] = [[], [], []]
        for (const current of steps) {
          if (current.kind === 'loop') loop.runAll()
          else if (current.kind === 'release') hold.release(sockets[current.socket]!.socket)
          else {
            hold.hold(sockets[current.socket]!.socket)
            sockets[current.socket]!.socket.write(current.text)
            expected[current.socket]!.push(current.text)
          }
          // Never more than one release waits: one a turn of the loop.
          expect(loop.pending).toBeLessThanOrEqual(1)
        }
        loop.runAll()
        sockets.forEach(({ socket, flat }, index) => {
          expect(flat()).toEqual(expected[index])
          expect(socket.writableCorked).toBe(0)
        })
      }),
    )
  })
})
