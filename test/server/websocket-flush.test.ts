import { Socket } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createFakeCharpipe } from '../../src/testing/create-fake-charpipe.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await server?.stop()
  server = undefined
})

/** The sockets corked from now on: the WebSocket transports (frames of one turn of the loop are corked together). */
function watchCorkedSockets(): Set<Socket> {
  const corked = new Set<Socket>()
  const cork = Socket.prototype.cork
  vi.spyOn(Socket.prototype, 'cork').mockImplementation(function (this: Socket) {
    corked.add(this)
    return cork.call(this)
  })
  return corked
}

describe('GET /ws writes', () => {
  it('hands llm_done to the socket at once, not after the work that follows it in the same tick', async () => {
    // The frames of one tick are corked together; the sockets corked are the WebSocket transports.
    const corked = watchCorkedSockets()
    const seenAfterDone: { corked: number; buffered: number }[] = []
    server = await startTestServer({
      createCharpipe: async (config) => {
        const fake = createFakeCharpipe({ config })
        const run = fake.run.bind(fake)
        // What runs right after the server took llm_done, in the same tick (as the engine's
        // memory write does): the frame must already have left the corked socket by then.
        fake.run = (input, { onEvent, ...options }) =>
          run(input, {
            ...options,
            onEvent: (event) => {
              onEvent(event)
              if (event.type !== 'llm_done') return
              for (const socket of corked)
                seenAfterDone.push({ corked: socket.writableCorked, buffered: socket.writableLength })
            },
          })
        return fake
      },
    })
    const client = await openTestSocket(`${server.url}/ws`)
    client.send({ type: 'user_input', text: '你好' })
    await client.waitForTurn('default')
    expect(seenAfterDone.length).toBeGreaterThan(0)
    for (const seen of seenAfterDone) expect(seen).toEqual({ corked: 0, buffered: 0 })
    await client.close()
  })

  it('sends the frames of one turn of the loop in one write, in the order the turn made them', async () => {
    // The fake's turn runs in one turn of the loop (no delay between chunks): held together.
    const corked = watchCorkedSockets()
    let writes = 0
    const writev = Socket.prototype._writev!
    vi.spyOn(Socket.prototype, '_writev').mockImplementation(function (this: Socket, ...args) {
      if (corked.has(this)) writes++
      return writev.apply(this, args)
    })
    const write = Socket.prototype._write
    vi.spyOn(Socket.prototype, '_write').mockImplementation(function (this: Socket, ...args) {
      if (corked.has(this)) writes++
      return write.apply(this, args)
    })
    const emitted: { type: string; text?: unknown }[] = []
    server = await startTestServer({
      createCharpipe: async (config) => {
        const fake = createFakeCharpipe({ config })
        const run = fake.run.bind(fake)
        fake.run = (input, { onEvent, ...options }) =>
          run(input, {
            ...options,
            onEvent: (event) => {
              emitted.push({ type: event.type, text: (event as { text?: unknown }).text })
              onEvent(event)
            },
          })
        return fake
      },
    })
    const client = await openTestSocket(`${server.url}/ws`)
    writes = 0
    client.send({ type: 'user_input', text: '你好，今天天气怎么样？' })
    const frames = await client.waitForTurn('default')
    const received = frames.map((frame) => ({ type: frame.type, text: frame.text }))
    expect(received).toEqual(emitted)
    expect(frames.length).toBeGreaterThan(3)
    expect(writes).toBeGreaterThan(0)
    expect(writes).toBeLessThan(frames.length)
    await client.close()
  })
})
