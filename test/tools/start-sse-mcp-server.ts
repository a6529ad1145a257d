/**
 * An MCP server that speaks only the older HTTP+SSE transport (the official SDK's
 * `SSEServerTransport`), as remote servers written before Streamable HTTP do: `GET /sse` opens the
 * event stream, `POST /messages?sessionId=…` carries the client's messages, and anything else (a
 * Streamable HTTP `POST /sse`) is refused. `requests` records `METHOD path` of every request.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { createTestMcpServer } from './mcp-test-tools.mjs'

export interface SseMcpServer {
  url: string
  requests: string[]
  close(): Promise<void>
}

export async function startSseMcpServer(options: { toolPrefix?: string } = {}): Promise<SseMcpServer> {
  const requests: string[] = []
  const transports = new Map<string, SSEServerTransport>()
  const http = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    requests.push(`${request.method} ${url.pathname}`)
    if (request.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', response)
      transports.set(transport.sessionId, transport)
      response.on('close', () => transports.delete(transport.sessionId))
      await createTestMcpServer({ toolPrefix: options.toolPrefix ?? '' }).connect(transport)
      return
    }
    const transport = transports.get(url.searchParams.get('sessionId') ?? '')
    if (request.method === 'POST' && url.pathname === '/messages' && transport) {
      await transport.handlePostMessage(request, response)
      return
    }
    response.writeHead(405, { allow: 'GET' }).end('this server speaks HTTP+SSE only')
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/sse`,
    requests,
    async close() {
      for (const transport of transports.values()) await transport.close().catch(() => {})
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
