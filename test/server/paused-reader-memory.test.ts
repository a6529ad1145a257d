/**
 * A WebSocket client that stops reading while the real engine streams a long reply in tiny pieces
 * from a model faster than the turn (it writes as fast as its connection takes): what the server
 * holds stays near the reader's bound. The Buffers held in this process (`arrayBuffers` after a full
 * collection: the frames waiting for the reader, the model's stream read ahead of the turn) are
 * counted as the engine hands out the reply and compared with `server.ws_max_buffered_bytes`. The
 * model here makes each event when its connection takes more, so what it holds itself is a few KB.
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
// Five-character pieces, each a sentence (about 32 bytes of frames a character). How much the
// kernel's socket buffers take before the server holds anything varies from run to run (0.8 to 4 MB
// of frames here, more on a machine with larger buffers), so the model streams until the turn is cut
// (its connection closes), up to 1,000,000 pieces: about 160 MB of frames, past any socket buffer.
const mostPieces = 1_000_000
// Streamed characters between two looks at the memory held: every 1,024 at first, then every
// eighth of what came so far (a read's pieces come joined, up to 4,096 characters in one event).
// Many looks before a cut at 20,000 characters, and not thousands of collections if it comes late.
const firstLooksEvery = 1024

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

/**
 * Writes `text`; when the response's buffer is full, resolves once `text` has gone to the socket.
 * Not the response's 'drain': Node 26 can leave it unsent for good once the buffers have emptied
 * (nodejs/node#64680; this model then stalled for the provider's 30 s), while a write's callback
 * runs when its bytes reach the socket.
 */
function writeWhenTaken(response: ServerResponse, text: string, closed: Promise<unknown>) {
  let taken!: () => void
  const written = new Promise<void>((resolve) => (taken = resolve))
  if (response.write(text, () => taken())) return undefined
  return Promise.race([written, closed])
}

/** Writes the reply's events while the connection takes them, and waits when it does not. */
async function streamReply(response: ServerResponse): Promise<void> {
  // One listener for the whole reply (one per wait would pile up on the response).
  const closed = once(response, 'close').catch(() => {})
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.write(frame({ role: 'assistant', content: '' }))
  for (let index = 0; index < mostPieces && !response.destroyed; index++) {
    await writeWhenTaken(response, frame({ content: `风很大${index % 10}。` }), closed)
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
  // Reads nothing from here on: the kernel's buffers fill, then the server's. The WebSocket's own
  // pause, not its raw socket's: `ws` resumes the raw socket whenever its frame parser drains,
  // unless the WebSocket itself is paused (so a client paused underneath read on, now and then).
  socket.pause()
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
    let nextLook = firstLooksEvery
    server.charpipe.on('llm_chunk', (event) => {
      characters += event.text.length
      // Often enough to see a queue grow, seldom enough that the collections stay cheap.
      if (characters < nextLook) return
      nextLook = characters + Math.max(firstLooksEvery, Math.floor(characters / 8))
      looks++
      mostHeld = Math.max(mostHeld, heldArrayBuffers() - before)
    })
    // An error ending the turn instead (a stalled model stream) is named in the failure.
    const errors: unknown[] = []
    server.charpipe.on('llm_error', (event) => errors.push(event))
    const done = new Promise<{ interrupted: boolean }>((resolve) => server!.charpipe.on('llm_done', resolve))
    const socket = await openPausedSocket(server.url)
    socket.send(JSON.stringify({ type: 'user_input', session: 'paused', text: '说吧' }))

    // Cut at its bound while the reply streams: the turn is interrupted, the socket closed.
    const { interrupted } = await done
    expect({ interrupted, errors, characters }).toMatchObject({ interrupted: true, errors: [] })
    expect(server.logLines.some((line) => line.includes('closing a websocket'))).toBe(true)
    // The frames waiting for the reader (at most its bound) and 64 KiB of the model's stream, with
    // room for the sockets' own buffers (0.6–0.8 MB in all here); the model's stream read ahead of
    // the turn, as it was before its queue had a bound, held 14 MB.
    expect(looks).toBeGreaterThanOrEqual(10)
    expect(mostHeld).toBeLessThan(readerBound + 1024 * 1024)
    socket.terminate()
  })
})
