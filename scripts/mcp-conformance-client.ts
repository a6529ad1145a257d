/**
 * The MCP client under test of the official conformance suite: charpipe's own MCP client
 * (`createMcpTools`, as `tools.mcp_servers` uses it), started by the suite with the scenario's
 * server URL as its argument and the scenario's name in `MCP_CONFORMANCE_SCENARIO`. It connects,
 * lists the tools, calls the ones the scenario expects to be called, and exits 0 when all of that
 * worked. Run through `scripts/run-mcp-conformance.ts` (`npm run test:mcp-conformance`).
 */
import { createMcpTools } from '../src/tools/index.js'

const url = process.argv[2]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? ''
if (!url) {
  console.error('usage: mcp-conformance-client <server-url>')
  process.exit(2)
}

// What each tools scenario expects the client to call, with its arguments.
const calls: Record<string, { tool: string; arguments: Record<string, unknown> }[]> = {
  initialize: [],
  tools_call: [{ tool: 'add_numbers', arguments: { a: 2, b: 3 } }],
  'sse-retry': [{ tool: 'test_reconnection', arguments: {} }],
}

const mcp = await createMcpTools('conformance', { url, timeout_ms: 20_000 })
try {
  console.log(`tools: ${mcp.tools.map((tool) => tool.name).join(', ') || '(none)'}`)
  for (const call of calls[scenario] ?? []) {
    const tool = mcp.tools.find((candidate) => candidate.name === call.tool)
    if (!tool) throw new Error(`the server did not list ${call.tool}`)
    const signal = new AbortController().signal
    const result = await tool.execute(call.arguments, { signal, session: 'conformance', turn: 'conformance' })
    console.log(`${call.tool}: ${String(result)}`)
  }
} finally {
  await mcp.close()
}
