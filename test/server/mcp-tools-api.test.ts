/**
 * MCP servers through the server: `GET /api/tools`, masked env values, and the admin API refusing
 * to start programs (a stdio server's command, args, env and cwd come from the config file only).
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import { startMockModelServer } from '../../src/testing/index.js'
import { startTestServer, type TestServer } from './start-test-server.js'

const stdioScript = fileURLToPath(new URL('../tools/mcp-stdio-server.mjs', import.meta.url))
const misbehavingScript = fileURLToPath(new URL('../tools/mcp-misbehaving-server.mjs', import.meta.url))

let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
})

const configText = `llm:
  provider: mock
history:
  store: memory
memory:
  enabled: false
tools:
  mcp_servers:
    local:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(stdioScript)}]
      env:
        SERVICE_TOKEN: env-secret-value-123
`

async function start() {
  server = await startTestServer({
    configText,
    createCharpipe: (config, logger) => createCharpipe(config, { logger }),
  })
  return server
}

const putConfig = (body: unknown) =>
  fetch(`${server!.url}/api/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

async function readTools() {
  return (await (await fetch(`${server!.url}/api/tools`)).json()) as {
    tools: { name: string; description: string; server?: string }[]
    servers: { name: string; state: string; error?: string }[]
  }
}

async function waitUntilReady() {
  const deadline = Date.now() + 10_000
  for (;;) {
    const listing = await readTools()
    if (listing.servers.every((entry) => entry.state === 'ready')) return listing
    if (Date.now() > deadline) throw new Error(`servers not ready: ${JSON.stringify(listing.servers)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('MCP servers through the admin API', () => {
  it('GET /api/tools lists each tool with its server, and the servers with their state', async () => {
    await start()
    const listing = await waitUntilReady()
    expect(listing.servers).toEqual([{ name: 'local', state: 'ready' }])
    expect(listing.tools).toContainEqual({ name: 'echo', description: 'Repeats the text', server: 'local' })
    // The server's output is logged, its env values (secrets) are not.
    const logs = server!.logLines.join('\n')
    expect(logs).toContain('using token')
    expect(logs).not.toContain('env-secret-value-123')
  })

  it('GET /api/tools says why a server failed (its last stderr lines, scrubbed) and the others still work', async () => {
    server = await startTestServer({
      configText: `${configText}    fs:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(misbehavingScript)}]
      env:
        MCP_MISBEHAVE: exit
        SERVICE_TOKEN: fs-secret-value-456
    endless:
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(misbehavingScript)}]
      env:
        MCP_MISBEHAVE: endless-cursor
`,
      createCharpipe: (config, logger) => createCharpipe(config, { logger }),
    })
    const listing = await vi.waitFor(
      async () => {
        const current = await readTools()
        if (current.servers.some((entry) => entry.state === 'connecting')) throw new Error('still connecting')
        return current
      },
      { timeout: 20_000, interval: 50 },
    )
    const byName = Object.fromEntries(listing.servers.map((entry) => [entry.name, entry]))
    expect(byName.local?.state).toBe('ready')
    expect(byName.fs?.state).toBe('failed')
    expect(byName.fs?.error).toContain('None of the specified directories are accessible')
    expect(byName.endless?.error).toContain('tools.mcp_servers.endless.max_list_pages')
    expect(JSON.stringify(listing)).not.toContain('fs-secret-value-456')
    expect(listing.tools).toContainEqual({ name: 'echo', description: 'Repeats the text', server: 'local' })
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    const logs = server.logLines.join('\n')
    expect(logs).toContain('None of the specified directories are accessible')
    expect(logs).not.toContain('fs-secret-value-456')
  })

  it('masks env values in GET /api/config and keeps them through a save of the masked form', async () => {
    await start()
    const config = await (await fetch(`${server!.url}/api/config`)).json()
    expect(config.tools.mcp_servers.local.env).toEqual({ SERVICE_TOKEN: '***' })
    expect(JSON.stringify(config)).not.toContain('env-secret-value-123')
    const response = await putConfig({ tools: config.tools, character: { name: 'Mika' } })
    expect(response.status).toBe(200)
    expect(await readFile(server!.configPath, 'utf8')).toContain('env-secret-value-123')
  })

  it('refuses adding a stdio server or changing what one runs, naming the field', async () => {
    await start()
    const added = await putConfig({ tools: { mcp_servers: { evil: { command: 'sh', args: ['-c', 'id'] } } } })
    expect(added.status).toBe(400)
    const addedBody = await added.json()
    expect(addedBody.error.code).toBe('invalid_config')
    expect(JSON.stringify(addedBody)).toContain('tools.mcp_servers.evil.command')
    const changed = await putConfig({ tools: { mcp_servers: { local: { args: ['other.mjs'] } } } })
    expect(changed.status).toBe(400)
    expect(JSON.stringify(await changed.json())).toContain('tools.mcp_servers.local.args')
    const before = await readFile(server!.configPath, 'utf8')
    expect(before).not.toContain('evil')
    expect(before).not.toContain('other.mjs')
  })

  it('/metrics counts calls, errors and seconds per tool', async () => {
    const model = await startMockModelServer()
    try {
      server = await startTestServer({
        configText: configText.replace(
          'provider: mock',
          `provider: custom\n  base_url: ${model.url}/v1\n  model: m\n  max_retries: 0`,
        ),
        createCharpipe: (config, logger) => createCharpipe(config, { logger }),
      })
      model.script([
        { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }] },
        { toolCalls: [{ id: 'c2', name: 'fail', arguments: {} }] },
        { text: 'done' },
      ])
      const chat = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'go' }),
      })
      expect(await chat.text()).toContain('done')
      const metrics = await (await fetch(`${server.url}/metrics`)).text()
      expect(metrics).toContain('charpipe_tool_calls_total{tool="echo",server="local"} 1')
      expect(metrics).toContain('charpipe_tool_errors_total{tool="fail",server="local"} 1')
      expect(metrics).toContain('charpipe_tool_errors_total{tool="echo",server="local"} 0')
      expect(metrics).toMatch(/charpipe_tool_call_seconds_total\{tool="echo",server="local"\} [0-9.e-]+/)
    } finally {
      await model.close()
    }
  })

  it('allows other settings of a stdio server and applies them without a restart', async () => {
    await start()
    await waitUntilReady()
    const response = await putConfig({ tools: { mcp_servers: { local: { prefix: 'my_' } } } })
    expect(response.status).toBe(200)
    const listing = await waitUntilReady()
    expect(listing.tools.map((tool) => tool.name)).toContain('my_echo')
  })
})
