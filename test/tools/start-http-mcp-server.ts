/**
 * A Streamable HTTP MCP server for the tests, on a free local port, one MCP session per client.
 * `events` records what it saw (`slow`, `cancelled`).
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { createTestMcpServer } from './mcp-test-tools.mjs'

export interface HttpMcpServer {
  url: string
  events: string[]
  close(): Promise<void>
}

export async function startHttpMcpServer(options: { toolPrefix?: string } = {}): Promise<HttpMcpServer> {
  const events: string[] = []
  const transports = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk)
    const text = Buffer.concat(chunks).toString()
    const body = text ? JSON.parse(text) : undefined
    const sessionId = request.headers['mcp-session-id'] as string | undefined
    let transport = sessionId ? transports.get(sessionId) : undefined
    if (!transport && request.method === 'POST' && isInitializeRequest(body)) {
      const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, created)
        },
      })
      transport = created
      const server = createTestMcpServer({
        toolPrefix: options.toolPrefix ?? '',
        onSlowStarted: () => events.push('slow'),
        onCancelled: () => events.push('cancelled'),
      })
      await server.connect(transport)
    }
    if (!transport) {
      response.writeHead(400).end('no session')
      return
    }
    await transport.handleRequest(request, response, body)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    events,
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => {})
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
