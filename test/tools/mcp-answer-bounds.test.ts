/**
 * A remote MCP server's answers are bounded as the model's are: an event of its stream that never
 * ends, and a small gzip body that inflates past 64 MiB, are refused naming the bound, instead of
 * growing the process until the connection's timeout (or the heap) runs out.
 */
import { once } from 'node:events'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpTools } from '../../src/tools/index.js'
import { maxMcpAnswerBytes, maxMcpEventBytes } from '../../src/tools/mcp/connect-mcp-server.js'
import { createLineBuffer } from '../../src/tools/mcp/create-line-buffer.js'

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** Answers every POST with `answer`; anything else (the SSE transport's fallback GET) with 405. */
async function startServer(answer: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume()
    if (request.method !== 'POST') {
      response.writeHead(405).end()
      return
    }
    answer(response)
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
}

/** Writes one piece after another, as fast as they are read, never ending what it writes. */
function writeEndlessly(response: ServerResponse): void {
  const piece = 'x'.repeat(64 * 1024)
  const pump = () => {
    while (!response.destroyed && response.write(piece));
    if (!response.destroyed) response.once('drain', pump)
  }
  pump()
}

/** `run`, counting the calls of `Buffer.concat` it makes (the joins of a read buffer). */
async function countBufferJoins(run: () => Promise<void> | void): Promise<number> {
  const concat = Buffer.concat
  let joined = 0
  Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
    joined++
    return concat(list, length)
  }) as typeof Buffer.concat
  try {
    await run()
  } finally {
    Buffer.concat = concat
  }
  return joined
}

describe("a remote MCP server's answers", () => {
  it('an event that never ends is refused past its bound, well before the timeout', async () => {
    const url = await startServer((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('event: message\ndata: ')
      writeEndlessly(response)
    })
    await expect(createMcpTools('endless', { url, timeout_ms: 120_000 })).rejects.toThrow(
      `a message of the MCP server's event stream passed ${maxMcpEventBytes} bytes: refused`,
    )
  })

  it('a JSON answer that inflates past its bound is refused', async () => {
    const bomb = gzipSync(Buffer.alloc(maxMcpAnswerBytes + 1024, 0x20))
    const url = await startServer((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      response.end(bomb)
    })
    await expect(createMcpTools('bomb', { url, timeout_ms: 120_000 })).rejects.toThrow(
      `the MCP server's answer passed ${maxMcpAnswerBytes} bytes: refused`,
    )
  })

  it('a tool call whose answer never ends fails naming the bound, after a good handshake', async () => {
    // Just enough of MCP over Streamable HTTP, by hand: JSON answers, then an endless event.
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      if (request.method !== 'POST') {
        response.writeHead(request.method === 'DELETE' ? 200 : 405).end()
        return
      }
      const message = JSON.parse(Buffer.concat(chunks).toString()) as {
        id?: number
        method: string
        params?: { protocolVersion?: string }
      }
      const answer = (result: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }))
      }
      if (message.method === 'initialize')
        return answer({
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '1' },
        })
      if (message.id === undefined) return void response.writeHead(202).end()
      if (message.method === 'tools/list')
        return answer({ tools: [{ name: 'look', inputSchema: { type: 'object', properties: {} } }] })
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('event: message\ndata: ')
      writeEndlessly(response)
    })
    servers.push(server)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
    const mcp = await createMcpTools('raw', { url, timeout_ms: 120_000 })
    try {
      const [look] = mcp.tools
      await expect(
        look?.execute({}, { signal: new AbortController().signal, session: 's', turn: 't' }),
      ).rejects.toThrow(
        `a message of the MCP server's event stream passed ${maxMcpEventBytes} bytes: refused`,
      )
    } finally {
      await mcp.close()
    }
  })
})

describe("a stdio MCP server's output", () => {
  it('a line that never ends is read in linear time and refused at the bound', async () => {
    const endless =
      "const piece = 'x'.repeat(65536); const pump = () => { while (process.stdout.write(piece)); process.stdout.once('drain', pump) }; pump()"
    const joined = await countBufferJoins(() =>
      expect(
        createMcpTools('endless', { command: process.execPath, args: ['-e', endless], timeout_ms: 60_000 }),
      ).rejects.toThrow(/MCP server endless: the server wrote a line longer than 10485760 bytes: refused/),
    )
    // The SDK's own buffer joins every chunk to the rest: about 160 joins of up to 10 MiB each.
    expect(joined).toBeLessThan(20)
  })

  it("joins a line's chunks once, however many there are", async () => {
    const buffer = createLineBuffer({ maxBytes: 16 * 1024 * 1024, parse: (text) => text.length })
    const piece = Buffer.alloc(64 * 1024, 0x78)
    const joined = await countBufferJoins(() => {
      for (let index = 0; index < 150; index++) {
        buffer.append(piece)
        expect(buffer.readMessage()).toBeNull()
      }
      buffer.append(Buffer.from('\n'))
      expect(buffer.readMessage()).toBe(150 * 64 * 1024)
    })
    expect(joined).toBe(1)
  })
})
