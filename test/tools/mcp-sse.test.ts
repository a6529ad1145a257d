/**
 * A remote MCP server of the older kind, speaking only HTTP+SSE (the official SDK's
 * `SSEServerTransport`): the client tries Streamable HTTP first, is refused, falls back to SSE, and
 * the server's tools are listed and called in a turn against the mock model server.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCharpipe } from '../../src/engine/index.js'
import type { Charpipe } from '../../src/engine/types.js'
import { makeConfig } from '../../src/testing/create-turn-harness.js'
import { type MockModelServer, startMockModelServer } from '../../src/testing/index.js'
import { collectEvents, doneOf } from '../../src/testing/turn-events.js'
import { createMcpTools } from '../../src/tools/index.js'
import { type SseMcpServer, startSseMcpServer } from './start-sse-mcp-server.js'

let model: MockModelServer
let legacy: SseMcpServer
const opened: Charpipe[] = []

beforeAll(async () => {
  model = await startMockModelServer()
  legacy = await startSseMcpServer({ toolPrefix: 'old_' })
})
afterAll(async () => {
  await model.close()
  await legacy.close()
})
beforeEach(() => {
  model.reset()
  legacy.requests.length = 0
})
afterEach(async () => {
  for (const charpipe of opened.splice(0)) await charpipe.close()
})

describe('a remote MCP server with only the HTTP+SSE transport', () => {
  it('is reached through the SSE fallback: tools listed and called in a turn', async () => {
    const charpipe = await createCharpipe(
      makeConfig({
        llm: { provider: 'custom', base_url: `${model.url}/v1`, model: 'm', max_retries: 0 },
        tools: { mcp_servers: { legacy: { url: legacy.url, timeout_ms: 10_000 } } },
      }),
    )
    opened.push(charpipe)
    model.script([
      { toolCalls: [{ id: 'c1', name: 'old_echo', arguments: { text: 'over sse' } }] },
      { text: 'It answered.' },
    ])
    const events = await collectEvents(charpipe.generate({ text: 'echo over sse' }))
    expect(doneOf(events).text).toBe('It answered.')
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ result: 'echo: over sse' })
    expect(JSON.stringify(model.requests[1]!.body)).toContain('echo: over sse')
    const listed = charpipe.inspect.tools()
    expect(listed.servers).toEqual([{ name: 'legacy', state: 'ready' }])
    expect(listed.tools).toContainEqual({
      name: 'old_echo',
      description: 'Repeats the text',
      server: 'legacy',
    })
    // Streamable HTTP was tried first and refused, then the SSE stream was opened.
    expect(legacy.requests[0]).toBe('POST /sse')
    expect(legacy.requests).toContain('GET /sse')
    expect(legacy.requests.indexOf('GET /sse')).toBeGreaterThan(0)
    expect(legacy.requests).toContain('POST /messages')
  })

  it('createMcpTools connects the same way', async () => {
    const mcp = await createMcpTools('legacy', { url: legacy.url, timeout_ms: 10_000 })
    try {
      const echo = mcp.tools.find((tool) => tool.name === 'old_echo')!
      const signal = new AbortController().signal
      expect(await echo.execute({ text: 'direct' }, { signal, session: 's', turn: 't' })).toBe('echo: direct')
    } finally {
      await mcp.close()
    }
  })
})
