import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { once } from 'node:events'
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { type MockModelServer, startMockModelServer } from '../testing/start-mock-model-server.js'
import { createNodeBodyPump } from './create-node-body-pump.js'
import { createNodeFetch, type NodeFetch, takeNodeBody } from './create-node-fetch.js'
import { createOpenAIStreamReader } from './create-openai-stream-reader.js'
import { createRequestTimer } from './create-request-timer.js'
import { waitUntil } from './test-helpers.js'

let server: MockModelServer
let transport: NodeFetch
beforeAll(async () => {
  server = await startMockModelServer()
})
afterAll(() => server.close())
afterEach(() => {
  transport?.close()
  server.reset()
})

/** The client sockets opened from now until the end of the test, in order. */
function watchClientSockets(): Socket[] {
  const sockets: Socket[] = []
  const onSocket = (message: unknown) => sockets.push((message as { socket: Socket }).socket)
  subscribe('net.client.socket', onSocket)
  onTestFinished(() => {
    unsubscribe('net.client.socket', onSocket)
  })
  return sockets
}

const post = (body: unknown, init: RequestInit = {}) =>
  transport.fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-node-fetch-1234' },
    body: JSON.stringify(body),
    ...init,
  })

const streamRequest = { model: 'm', stream: true, messages: [{ role: 'user', content: '你好' }] }

async function readPump(response: Response): Promise<string> {
  const message = takeNodeBody(response)
  if (!message) throw new Error('expected a Node body')
  const pump = createNodeBodyPump(message)
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const chunks = await pump.take()
    if (!chunks) return text
    for (const chunk of chunks) text += decoder.decode(chunk, { stream: true })
  }
}

describe('createNodeFetch', () => {
  it('sends method, headers and body, and hands a streamed answer over as a Node body', async () => {
    transport = createNodeFetch()
    server.script({ text: '你好呀。', chunkSize: 2 })
    const response = await post(streamRequest)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    const text = await readPump(response)
    expect(text).toContain('data: [DONE]')
    expect(text).toContain('你好')
    const sent = server.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.headers.authorization).toBe('Bearer sk-node-fetch-1234')
    expect(sent.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(streamRequest))))
    expect(sent.body).toEqual(streamRequest)
    // Taken once: the provider owns the body from then on.
    expect(takeNodeBody(response)).toBeUndefined()
  })

  it('still gives a streamed answer as a web stream to a reader that asks for response.body', async () => {
    transport = createNodeFetch()
    server.script({ text: '第二句。', chunkSize: 3 })
    const response = await post(streamRequest)
    const text = await response.text()
    expect(text).toContain('data: [DONE]')
    expect(takeNodeBody(response)).toBeUndefined()
  })

  it('answers an error status with its whole body, readable the usual way', async () => {
    transport = createNodeFetch()
    server.script({ status: 429, body: { error: { message: 'slow down' } }, retryAfter: 3 })
    const response = await post(streamRequest)
    expect(response.status).toBe(429)
    expect(response.ok).toBe(false)
    expect(response.headers.get('retry-after')).toBe('3')
    expect(takeNodeBody(response)).toBeUndefined()
    expect(await response.json()).toEqual({ error: { message: 'slow down' } })
  })

  it('fails like fetch (TypeError "fetch failed") when nothing listens', async () => {
    transport = createNodeFetch()
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise((resolve) => probe.close(resolve))
    const failure = await transport.fetch(`http://127.0.0.1:${port}/v1/x`).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as Error).message).toBe('fetch failed')
  })

  it('rejects with the abort reason and closes the connection when the signal fires mid-stream', async () => {
    transport = createNodeFetch()
    server.script({ text: 'z'.repeat(100), chunkSize: 1, delayMs: 20 })
    const controller = new AbortController()
    const response = await post(streamRequest, { signal: controller.signal })
    const pump = createNodeBodyPump(takeNodeBody(response)!)
    await pump.take()
    controller.abort(new Error('stop'))
    await waitUntil(() => server.requests[0]?.closedEarly === true, 'the server saw the connection close')
    await expect(
      (async () => {
        while (await pump.take()) {}
      })(),
    ).rejects.toBeDefined()

    const aborted = new AbortController()
    aborted.abort()
    await expect(post(streamRequest, { signal: aborted.signal })).rejects.toMatchObject({
      name: 'AbortError',
    })
  })

  it('keeps connections alive between requests and survives the server closing an idle one', async () => {
    transport = createNodeFetch()
    const sockets = new Set<unknown>()
    const plain: Server = createServer((_request, response) => {
      sockets.add(response.socket)
      response.end('ok')
    })
    // Node's agent honours the server's `Keep-Alive: timeout` hint; a short one would stop reuse.
    plain.keepAliveTimeout = 5000
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`
    const opened = watchClientSockets()
    try {
      expect(await (await transport.fetch(url)).text()).toBe('ok')
      expect(await (await transport.fetch(url)).text()).toBe('ok')
      expect(sockets.size).toBe(1)
      expect(opened).toHaveLength(1)
      const [clientSocket] = opened
      plain.closeIdleConnections()
      // The client has seen the close and dropped the socket from its pool.
      if (!clientSocket!.closed) await once(clientSocket!, 'close')
      expect(await (await transport.fetch(url)).text()).toBe('ok')
      expect(sockets.size).toBe(2)
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('sends a request again on a new connection when the server closed its kept-alive one as it went out', async () => {
    transport = createNodeFetch()
    const bodies: string[] = []
    const plain: Server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        bodies.push(body)
        response.end('ok')
      })
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/v1/chat/completions`
    const opened = watchClientSockets()
    try {
      expect(await (await transport.fetch(url, { method: 'POST', body: 'first' })).text()).toBe('ok')
      // The server's keep-alive timeout runs out just as the next request is written: this process
      // has not read the close yet, so the request goes out on the closed connection.
      plain.closeIdleConnections()
      expect(await (await transport.fetch(url, { method: 'POST', body: 'second' })).text()).toBe('ok')
      expect(bodies).toEqual(['first', 'second'])
      expect(opened).toHaveLength(2)
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('does not send again a request whose new connection the server reset', async () => {
    transport = createNodeFetch()
    let received = 0
    const plain: Server = createServer((request) => {
      received++
      request.socket.destroy()
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/v1/chat/completions`
    try {
      await expect(transport.fetch(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
        message: 'fetch failed',
        cause: { code: 'ECONNRESET' },
      })
      expect(received).toBe(1)
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('sends the path and query of the URL, given as a string or a URL, to the host it names', async () => {
    transport = createNodeFetch()
    const seen: string[] = []
    const plain: Server = createServer((request, response) => {
      seen.push(`${request.headers.host} ${request.url}`)
      response.end('ok')
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const port = (plain.address() as AddressInfo).port
    try {
      const first = `http://localhost:${port}/v1/chat/completions?api-version=2024-10-01`
      await (await transport.fetch(first)).text()
      await (await transport.fetch(first)).text()
      await (await transport.fetch(new URL(`http://127.0.0.1:${port}/a%20b/?q=%E4%BD%A0`))).text()
      expect(seen).toEqual([
        `localhost:${port} /v1/chat/completions?api-version=2024-10-01`,
        `localhost:${port} /v1/chat/completions?api-version=2024-10-01`,
        `127.0.0.1:${port} /a%20b/?q=%E4%BD%A0`,
      ])
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('decodes a gzip body, streamed or not, and follows a redirect like fetch', async () => {
    transport = createNodeFetch()
    const handler: RequestListener = (request, response) => {
      if (request.url === '/old') {
        response.writeHead(307, { location: '/stream' })
        response.end()
      } else if (request.url === '/stream') {
        response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' })
        response.end(gzipSync('data: 你好\n\ndata: [DONE]\n\n'))
      } else {
        response.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        response.end(gzipSync(JSON.stringify({ error: { message: 'bad' } })))
      }
    }
    const plain = createServer(handler)
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`
    try {
      expect(await readPump(await transport.fetch(`${base}/stream`))).toBe('data: 你好\n\ndata: [DONE]\n\n')
      const failed = await transport.fetch(`${base}/error`)
      expect(failed.status).toBe(400)
      expect(await failed.json()).toEqual({ error: { message: 'bad' } })
      const redirected = await transport.fetch(`${base}/old`, { method: 'POST', body: '{}' })
      expect(redirected.status).toBe(200)
      expect(await redirected.text()).toBe('data: 你好\n\ndata: [DONE]\n\n')
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('stops reading an answer past its bound, counted after decompression (a gzip bomb)', async () => {
    transport = createNodeFetch(undefined, { maxAnswerBytes: 1024 * 1024 })
    // 8 MiB of spaces in a JSON error body: about 8 KB on the wire.
    const bomb = gzipSync(`{"error":{"message":"${' '.repeat(8 * 1024 * 1024)}"}}`)
    const small = JSON.stringify({ error: { message: 'bad' } })
    const plain = createServer((request, response) => {
      response.writeHead(500, {
        'content-type': 'application/json',
        ...(request.url === '/bomb' ? { 'content-encoding': 'gzip' } : {}),
      })
      response.end(request.url === '/bomb' ? bomb : small)
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`
    try {
      expect(bomb.length).toBeLessThan(64 * 1024)
      const refused = await transport.fetch(`${base}/bomb`).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(TypeError)
      expect(((refused as Error).cause as Error).message).toBe(
        "the upstream's answer passed 1048576 bytes once decompressed: refused",
      )
      // The transport goes on answering.
      expect(await (await transport.fetch(`${base}/small`)).json()).toEqual({ error: { message: 'bad' } })
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('after [DONE] lets a body that ends a moment later end, so its connection is used again', async () => {
    transport = createNodeFetch()
    const sockets = new Set<unknown>()
    const unended: ServerResponse[] = []
    const plain: Server = createServer((_request, response) => {
      sockets.add(response.socket)
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: {"choices":[{"index":0,"delta":{"content":"好"},"finish_reason":"stop"}]}\n\n')
      response.write('data: [DONE]\n\n')
      // The end of the chunked body comes in a later packet, as from many gateways: here, once the
      // reader has finished with [DONE].
      unended.push(response)
    })
    plain.keepAliveTimeout = 5000
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`
    const opened = watchClientSockets()
    const readReply = async () => {
      const timer = createRequestTimer({ timeoutMs: 5000, stallTimeoutMs: 5000 })
      const pump = createNodeBodyPump(takeNodeBody(await transport.fetch(url))!)
      const reader = createOpenAIStreamReader({ body: null, pump, timer })
      const types: string[] = []
      for (let batch = await reader.next(); batch; batch = await reader.next())
        types.push(...batch.map((event) => event.type))
      timer.dispose(true)
      return types
    }
    try {
      expect(await readReply()).toEqual(['text-delta', 'finish'])
      // The late end arrives within the grace: the socket goes back to the pool.
      const returned = once(opened[0]!, 'free')
      unended.shift()!.end()
      await returned
      expect(await readReply()).toEqual(['text-delta', 'finish'])
      unended.shift()!.end()
      expect(sockets.size).toBe(1)
      expect(opened).toHaveLength(1)
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })

  it('closes a body that does not end within the grace after release', async () => {
    transport = createNodeFetch()
    const plain: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: [DONE]\n\n')
    })
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`
    try {
      const body = takeNodeBody(await transport.fetch(url))!
      const pump = createNodeBodyPump(body, { releaseGraceMs: 20 })
      await pump.take()
      pump.release!()
      await waitUntil(() => body.destroyed, 'the body was closed')
      expect(await pump.take()).toBeUndefined()
    } finally {
      plain.closeAllConnections()
      await new Promise((resolve) => plain.close(resolve))
    }
  })
})
