/**
 * A stdio MCP server that misbehaves the way `MCP_MISBEHAVE` says, written on the official SDK's
 * low-level `Server` (the high-level one would not let it):
 *   - `endless-cursor`: every page of `tools/list` has one more tool-less page after it;
 *   - `slow-endless-cursor`: the same, each page taking `MCP_PAGE_DELAY_MS` (default 50);
 *   - `repeat-cursor`: pages a → b → a again;
 *   - `many-tools`: pages of 600 tools each, without end;
 *   - `huge-schema`: one tool whose input schema is 300,000 characters;
 *   - `turns-endless`: lists `break` and `ok`; calling `break` announces `list_changed` (three
 *     times at once), and from then on every listing is endless;
 *   - `exit`: writes why it cannot start to stderr (with its `SERVICE_TOKEN`) and exits with 1.
 * `MCP_EVENTS_FILE` (when set) gets `started` when a process starts and one line per `tools/list`
 * request (`list <cursor>`).
 */
import { appendFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const mode = process.env.MCP_MISBEHAVE ?? 'endless-cursor'
const pageDelayMs = Number(process.env.MCP_PAGE_DELAY_MS ?? 50)
const eventsFile = process.env.MCP_EVENTS_FILE
const note = (line) => {
  if (eventsFile) appendFileSync(eventsFile, `${line}\n`)
}

if (mode === 'exit') {
  console.error(`starting with token ${process.env.SERVICE_TOKEN ?? '(none)'}`)
  console.error('Error: None of the specified directories are accessible')
  process.exit(1)
}

const plainTool = (name) => ({ name, description: `The tool ${name}`, inputSchema: { type: 'object' } })
let broken = mode !== 'turns-endless'
let page = 0

const server = new Server(
  { name: 'misbehaving', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
)

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const cursor = request.params?.cursor
  note(`list ${cursor ?? ''}`)
  page++
  switch (broken ? mode : 'good') {
    case 'good':
      return { tools: [plainTool('break'), plainTool('ok')] }
    case 'slow-endless-cursor':
      await new Promise((resolve) => setTimeout(resolve, pageDelayMs))
      return { tools: [], nextCursor: `page-${page}` }
    case 'repeat-cursor':
      return {
        tools: [plainTool(`tool_${page}`)],
        nextCursor: cursor === 'b' ? 'a' : cursor === 'a' ? 'b' : 'a',
      }
    case 'many-tools':
      return {
        tools: Array.from({ length: 600 }, (_, index) => plainTool(`tool_${page}_${index}`)),
        nextCursor: `page-${page}`,
      }
    case 'huge-schema':
      return {
        tools: [
          plainTool('small'),
          {
            name: 'huge',
            inputSchema: {
              type: 'object',
              properties: { x: { type: 'string', description: 'x'.repeat(300_000) } },
            },
          },
        ],
      }
    default:
      return { tools: [plainTool(`tool_${page}`)], nextCursor: `page-${page}` }
  }
})

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === 'break') {
    broken = true
    // A burst of notifications: each would otherwise start a listing of its own.
    for (let index = 0; index < 3; index++) await server.sendToolListChanged()
    return { content: [{ type: 'text', text: 'broken' }] }
  }
  return { content: [{ type: 'text', text: `called ${request.params.name}` }] }
})

await server.connect(new StdioServerTransport())
note('started')
