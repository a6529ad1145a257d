/**
 * A WebSocket client that stops reading while the real engine streams a long reply in tiny pieces
 * from a model faster than the turn (it writes as fast as its connection takes): what the server
 * holds stays near the reader's bound. The Buffers held in this process (`arrayBuffers` after a full
 * collection: the frames waiting for the reader, the model's stream read ahead of the turn) are
 * counted every 1,024 characters the engine hands out and compared with `server.ws_max_buffered_bytes`. The model here makes each
 * event when its connection takes more, so what it holds itself is a few KB.
 */
import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startServerOverModel, type TestServer } from './start-test-server.js'

setFlagsFromString('--expose_gc')
const collect = runInNewContext('gc') as () => void
/** The Buffers this process holds: after a full collection, so only what something still references. */
const heldArrayBuffers = () => {
  // Twice: the Buffers a collection finds dead are freed while the next one starts, not at once.
  collect()
  collect()
  return process.memoryUsage().arrayBuffers
}

const readerBound = 1024 * 1024
// 100,000 five-character pieces, each a sentence: about 20 MB of SSE, many times the reader's bound.
const pieces = 100_000
// Streamed characters between two looks at the memory held. A read's pieces come joined, up to
// 4,096 characters in one event; when the reader is cut depends on how much the kernel's socket
// buffers take (Node 20 here: about 130,000 characters; Node 22: about 23,000), so the looks are
// counted, not the characters.
const lookEvery = 1024

let model: Server | undefined
let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  model?.closeAllConnections()
  model?.close()
  server = undefined
  model = undefined
})

const frame = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-fast',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fast',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })}\n\n`

/** Writes the reply's events while the connection takes them, and waits when it does not. */
async function streamReply(response: ServerResponse): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.write(frame({ role: 'assistant', content: '' }))
  for (let index = 0; index < pieces && !response.destroyed; index++) {
    if (!response.write(frame({ content: `风很大${index % 10}。` })))
      await Promise.race([once(response, 'drain'), once(response, 'close')])
  }
  if (response.destroyed) return
  response.write(frame({}, 'stop'))
  response.end('data: [DONE]\n\n')
}

async function startFastModel(): Promise<string> {
  model = createServer((request, response) => {
    request.resume()
    request.once('end', () => void streamReply(response))
  })
  model.listen(0, '127.0.0.1')
  await once(model, 'listening')
  return `http://127.0.0.1:${(model.address() as AddressInfo).port}`
}

async function openPausedSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  socket.on('error', () => {})
  // Reads nothing from here on: the kernel's buffers fill, then the server's.
  ;(socket as unknown as { _socket: { pause(): void } })._socket.pause()
  return socket
}

describe('a paused reader of a fast model', { timeout: 120_000 }, () => {
  it('holds the reader within its bound, and the model is not read far ahead of the turn', async () => {
    server = await startServerOverModel(await startFastModel(), [
      'memory: { enabled: false }',
      `server: { ws_max_buffered_bytes: ${readerBound} }`,
    ])
    const before = heldArrayBuffers()
    let mostHeld = 0
    let looks = 0
    // Characters, not events: what one read brought comes as one chunk.
    let characters = 0
    let nextLook = lookEvery
    server.charpipe.on('llm_chunk', (event) => {
      characters += event.text.length
      // Often enough to see a queue grow, seldom enough that the collections stay cheap.
      if (characters < nextLook) return
      nextLook = characters + lookEvery
      looks++
      mostHeld = Math.max(mostHeld, heldArrayBuffers() - before)
    })
    const done = new Promise<{ interrupted: boolean }>((resolve) => server!.charpipe.on('llm_done', resolve))
    const socket = await openPausedSocket(server.url)
    socket.send(JSON.stringify({ type: 'user_input', session: 'paused', text: '说吧' }))

    // Cut at its bound while the reply streams: the turn is interrupted, the socket closed.
    expect((await done).interrupted).toBe(true)
    expect(server.logLines.some((line) => line.includes('closing a websocket'))).toBe(true)
    // The frames waiting for the reader (at most its bound) and 64 KiB of the model's stream, with
    // room for the sockets' own buffers (0.6–0.8 MB in all here); the model's stream read ahead of
    // the turn, as it was before its queue had a bound, held 14 MB.
    expect(looks).toBeGreaterThanOrEqual(10)
    expect(mostHeld).toBeLessThan(readerBound + 1024 * 1024)
    socket.terminate()
  })
})
