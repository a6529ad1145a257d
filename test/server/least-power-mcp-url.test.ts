/**
 * A remote MCP server's `url` set through the admin API obeys the outbound address rules that
 * guard `llm.base_url` (no link-local or metadata target, names resolved), and `/api/tools` says
 * how a page it reached answered without echoing its body. A real MCP server (official SDK) on
 * loopback still connects and lists its tools.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { startHttpMcpServer } from '../tools/start-http-mcp-server.js'
import { startTestServer, type TestServer } from './start-test-server.js'

let server: TestServer | undefined
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await server?.stop()
  server = undefined
  for (const close of closers.splice(0)) await close()
})

const configText = 'llm:\n  provider: mock\nhistory:\n  store: memory\nmemory:\n  enabled: false\n'

async function start() {
  server = await startTestServer({
    configText,
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
    // `metadata-alias.example` stands for a public name pointing at the metadata address.
    lookup: async (host) => (host === 'metadata-alias.example' ? ['169.254.169.254'] : ['127.0.0.1']),
  })
  return server
}

const putConfig = (body: unknown) =>
  fetch(`${server!.url}/api/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

const readTools = async () =>
  (await (await fetch(`${server!.url}/api/tools`)).json()) as {
    tools: { name: string }[]
    servers: { name: string; state: string; error?: string }[]
  }

describe('tools.mcp_servers.*.url through the admin API', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]:8080/mcp',
    'http://metadata.google.internal/mcp',
    'http://metadata-alias.example/mcp',
  ])('refuses %s with a field issue, and nothing is written', async (url) => {
    await start()
    const response = await putConfig({ tools: { mcp_servers: { probe: { url } } } })
    expect(response.status).toBe(400)
    const answer = await response.json()
    expect(answer.error.issues.map((issue: { path: string }) => issue.path)).toContain(
      'tools.mcp_servers.probe.url',
    )
    expect((await readTools()).servers).toEqual([])
  })

  it('accepts a real MCP server on loopback and lists its tools', async () => {
    const mcp = await startHttpMcpServer()
    closers.push(() => mcp.close())
    await start()
    expect((await putConfig({ tools: { mcp_servers: { remote: { url: mcp.url } } } })).status).toBe(200)
    await vi.waitFor(
      async () => expect((await readTools()).servers).toEqual([{ name: 'remote', state: 'ready' }]),
      {
        timeout: 15_000,
        interval: 50,
      },
    )
    expect((await readTools()).tools.length).toBeGreaterThan(0)
  })

  it('/api/tools names the status a plain page answered, never its body', async () => {
    const page = await startPage('<html>internal dashboard: db-password-hunter2</html>')
    closers.push(() => new Promise((done) => page.close(() => done())))
    await start()
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/admin`
    expect((await putConfig({ tools: { mcp_servers: { page: { url, timeout_ms: 2000 } } } })).status).toBe(
      200,
    )
    let listing = await readTools()
    await vi.waitFor(
      async () => {
        listing = await readTools()
        expect(listing.servers[0]?.state).toBe('failed')
      },
      { timeout: 15_000, interval: 50 },
    )
    const shown = JSON.stringify(listing)
    expect(shown).not.toContain('hunter2')
    expect(shown).not.toContain('dashboard')
    expect(listing.servers[0]!.error).toContain('404')
    expect(server!.logLines.join('\n')).not.toContain('hunter2')
  })
})

function startPage(body: string): Promise<Server> {
  const page = createServer((_request, response) => {
    response.writeHead(404, { 'content-type': 'text/html' })
    response.end(body)
  })
  return new Promise((done) => page.listen(0, '127.0.0.1', () => done(page)))
}
