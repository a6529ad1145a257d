/**
 * `server.limits.buffered_bytes_total`: the bytes held for all slow readers together, WebSocket and
 * streamed HTTP. Readers that stop reading are cut while their turns still stream (the turns end
 * interrupted, never blamed on the model), the one that lags most first; a client that reads, in
 * parallel, gets its whole reply. The fake Charpipe echoes a long input in 4-character chunks.
 */
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { CharpipeEvent } from '../../src/shared/events.js'
import { startTestServer, type TestServer } from './start-test-server.js'
import { openTestSocket } from './websocket-client.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

// Far more than the kernel's socket buffers take for a client that reads nothing (a few MB on
// loopback): the fake answers with the input in ~50,000 pieces.
const longText = '慢慢地读这一段很长的回答'.repeat(16_000)
const totalBound = 1024 * 1024

async function startServer(): Promise<TestServer> {
  return startTestServer({
    configText: [
      'server:',
      '  max_body_bytes: 4194304',
      // The bound of one reader is far away: only the total cuts here.
      `  ws_max_buffered_bytes: ${64 * 1024 * 1024}`,
      '  limits:',
      `    buffered_bytes_total: ${totalBound}`,
    ].join('\n'),
  })
}

/** The `llm_done` of each of `count` turns, as the engine ends them, and any `llm_error` codes. */
function watchTurns(charpipe: TestServer['charpipe'], count: number) {
  const done: Extract<CharpipeEvent, { type: 'llm_done' }>[] = []
  const errors: string[] = []
  const allDone = new Promise<void>((resolve) => {
    charpipe.on('llm_done', (event) => {
      done.push(event)
      if (done.length === count) resolve()
    })
  })
  charpipe.on('llm_error', (event) => errors.push(event.code))
  return { done, errors, allDone }
}

async function openPausedSocket(url: string): Promise<{ socket: WebSocket; closed: Promise<number> }> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`)
  await new Promise((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
  })
  socket.on('error', () => {})
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)))
  // Reads nothing from here on: the kernel's buffers fill, then the server's.
  socket.pause()
  return { socket, closed }
}

describe('the slow readers together', { timeout: 120_000 }, () => {
  it('are cut at buffered_bytes_total while their turns stream, and a client that reads gets its reply', async () => {
    server = await startServer()
    const pausedCount = 3
    const turns = watchTurns(server.charpipe, pausedCount * 2 + 1)
    const paused = await Promise.all(Array.from({ length: pausedCount }, () => openPausedSocket(server!.url)))
    paused.forEach(({ socket }, index) => {
      for (const turn of [0, 1])
        socket.send(
          JSON.stringify({ type: 'user_input', session: `paused-${index}-${turn}`, text: longText }),
        )
    })
    const reader = await openTestSocket(`${server.url}/ws`)
    reader.send({ type: 'user_input', session: 'reading', text: '短的' })
    const readerTurn = await reader.waitForTurn('reading')

    await turns.allDone
    // Reading again, each paused client sees its socket closed.
    for (const { socket } of paused) socket.resume()
    for (const code of await Promise.all(paused.map(({ closed }) => closed)))
      expect([1008, 1006]).toContain(code)
    // The reader that read got everything, and its turn ended as any other.
    const readerDone = readerTurn.at(-1)!
    expect(readerDone).toMatchObject({ type: 'llm_done', interrupted: false })
    expect(
      readerTurn
        .filter((frame) => frame.type === 'llm_chunk')
        .map((frame) => frame.text)
        .join(''),
    ).toBe(readerDone.text)
    // Each paused reader was cut in the middle of a reply: its turn interrupted, and no error
    // laid on the model.
    // (A turn that starts after its socket was cut sends nothing.)
    for (let index = 0; index < pausedCount; index++) {
      const cut = turns.done.filter(
        (event) => event.session.startsWith(`paused-${index}-`) && event.interrupted,
      )
      expect(cut.length).toBeGreaterThan(0)
      for (const event of cut) expect(event.text.length).toBeLessThan(longText.length)
    }
    expect(turns.errors).not.toContain('upstream_timeout')
    const cuts = server.logLines.filter((line) => line.includes('closing a websocket'))
    expect(cuts).toHaveLength(pausedCount)
    for (const line of cuts)
      expect(line).toContain(`the slow readers together hold more than ${totalBound} bytes`)
    await reader.close()
  })

  // Every streamed HTTP door goes through the same ledger as the WebSockets.
  const streamedDoors = [
    { path: '/api/chat', body: { session: 'sse-paused', text: longText } },
    {
      path: '/v1/chat/completions',
      body: { model: 'm', stream: true, messages: [{ role: 'user', content: longText }] },
    },
    { path: '/v1/responses', body: { model: 'm', stream: true, input: longText } },
  ]
  it.each(streamedDoors)('cut a streamed $path answer that is never read', async ({ path, body }) => {
    server = await startServer()
    const turns = watchTurns(server.charpipe, 1)
    const { port } = new URL(server.url)
    const ended = new Promise<string>((resolve) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: Number(port),
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', ...server!.headers },
        },
        (response) => {
          // Never read: the stream's chunks stay where they are.
          response.pause()
          response.once('aborted', () => resolve('aborted'))
          response.once('error', () => resolve('error'))
          response.once('close', () => resolve('close'))
        },
      )
      outgoing.once('error', () => resolve('error'))
      outgoing.end(JSON.stringify(body))
    })
    await turns.allDone
    expect(await ended).toMatch(/aborted|error|close/)
    expect(turns.done[0]).toMatchObject({ interrupted: true })
    expect(turns.done[0]!.text.length).toBeLessThan(longText.length)
    expect(turns.errors).not.toContain('upstream_timeout')
    expect(
      server.logLines.some(
        (line) =>
          line.includes('closing a stream') &&
          line.includes(`the slow readers together hold more than ${totalBound} bytes`),
      ),
    ).toBe(true)
  })
})
