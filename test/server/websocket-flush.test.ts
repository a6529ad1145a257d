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

describe('GET /ws writes', () => {
  it('hands llm_done to the socket at once, not after the work that follows it in the same tick', async () => {
    // The frames of one tick are corked together; the sockets corked are the WebSocket transports.
    const corked = new Set<Socket>()
    const cork = Socket.prototype.cork
    vi.spyOn(Socket.prototype, 'cork').mockImplementation(function (this: Socket) {
      corked.add(this)
      return cork.call(this)
    })
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
})
