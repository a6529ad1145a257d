/**
 * A WebSocket client that stops reading. The server's buffered output for it stays under
 * `server.ws_max_buffered_bytes` (here 256 KiB): past it the client's turns are interrupted and
 * stored as interrupted, and the socket is closed, instead of every frame piling up in memory.
 */
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { startServerOverModel, startTestServer, type TestServer } from '../server/start-test-server.js'
import './cpu-load-under-ci.js'

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

async function readMetric(name: string): Promise<number> {
  const text = await (await fetch(`${server!.url}/metrics`)).text()
  return Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1])
}

/** Until the server has closed every WebSocket (a hang guard of `attempts` × 100 ms). */
async function waitForNoConnections(attempts: number): Promise<void> {
  for (
    let attempt = 0;
    attempt < attempts && (await readMetric('charpipe_websocket_connections')) > 0;
    attempt++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('a reader that stops', { timeout: 60_000 }, () => {
  it('gets its turns interrupted and stored and its socket closed once its backlog passes the bound', async () => {
    server = await startTestServer({ configText: 'server:\n  ws_max_buffered_bytes: 262144\n' })
    const client = new WebSocket(`${server.url.replace(/^http/, 'ws')}/ws`)
    await new Promise((resolve, reject) => {
      client.once('open', resolve)
      client.once('error', reject)
    })
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      client.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
    // Stop reading: the kernel's buffers fill, then the server's.
    client.pause()
    const text = '慢慢读'.repeat(20_000)
    const sessions = Array.from({ length: 40 }, (_value, index) => `reader-${index}`)
    for (const session of sessions) client.send(JSON.stringify({ type: 'user_input', session, text }))

    await waitForNoConnections(300)
    expect(await readMetric('charpipe_websocket_connections')).toBe(0)
    expect(server.logLines.some((line) => line.includes('the client is not reading'))).toBe(true)
    expect(server.charpipe.sessions.active()).toEqual([])
    // The turns that had started were stored; those cut by the close are marked interrupted.
    // (Inputs still in flight when the socket closed never started.)
    const stored = (
      await Promise.all(sessions.map((session) => server!.charpipe.sessions.history({ session: session })))
    ).filter((messages) => messages.length > 0)
    expect(stored.length).toBeGreaterThan(0)
    expect(stored.every((messages) => messages[0]?.role === 'user')).toBe(true)
    expect(stored.some((messages) => messages.some((message) => message.interrupted))).toBe(true)

    client.resume()
    const { code } = await closed
    expect([1008, 1006]).toContain(code)
  })
})

describe('many readers that stop, over the real engine', { timeout: 90_000 }, () => {
  let model: MockModelServer | undefined
  afterEach(async () => {
    await model?.close()
    model = undefined
  })

  it('closes every socket at the byte budget (merged text counted) and never blames the model', async () => {
    // Long replies in small chunks: while a client lags they are merged, and the merged text counts.
    model = await startMockModelServer({
      script: { replies: [], default: { text: '慢慢读。'.repeat(20_000), chunkSize: 400, delayMs: 0 } },
    })
    server = await startServerOverModel(model.url, ['server:', '  ws_max_buffered_bytes: 262144'])
    const clients = await Promise.all(
      Array.from({ length: 8 }, async (_value, index) => {
        const client = new WebSocket(`${server!.url.replace(/^http/, 'ws')}/ws`)
        await new Promise((resolve, reject) => {
          client.once('open', resolve)
          client.once('error', reject)
        })
        client.pause()
        for (let turn = 0; turn < 4; turn++) {
          client.send(JSON.stringify({ type: 'user_input', session: `paused-${index}-${turn}`, text: '讲' }))
        }
        return client
      }),
    )
    await waitForNoConnections(600)
    expect(await readMetric('charpipe_websocket_connections')).toBe(0)
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    expect(metrics).not.toMatch(/charpipe_errors_total\{code="upstream_timeout"\} [1-9]/)
    expect(server.charpipe.sessions.active()).toEqual([])
    for (const client of clients) client.terminate()
  })
})
