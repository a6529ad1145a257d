/**
 * A stdio MCP server for the tests. `MCP_EVENTS_FILE` (when set) gets one line per notable event
 * (`started <pid>`, `slow`, `cancelled`), which the tests read to see what the server saw.
 */
import { appendFileSync } from 'node:fs'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { createTestMcpServer } from './mcp-test-tools.mjs'

const eventsFile = process.env.MCP_EVENTS_FILE
const note = (line) => {
  if (eventsFile) appendFileSync(eventsFile, `${line}\n`)
}
const server = createTestMcpServer({
  toolPrefix: process.env.MCP_TOOL_PREFIX ?? '',
  onSlowStarted: () => note('slow'),
  onCancelled: () => note('cancelled'),
})
// A server that prints its credentials (as some do when starting): the output must reach no log.
if (process.env.SERVICE_TOKEN) console.error(`using token ${process.env.SERVICE_TOKEN}`)
await server.connect(new StdioServerTransport())
note(`started ${process.pid}`)
