/**
 * Every tool of one MCP server (all pages of `tools/list`), within limits the server cannot stretch:
 * one deadline for the whole listing (not per page), at most so many pages and tools, each tool's
 * definition at most so many characters, and a cursor the server already gave refused (a server
 * that always answers with a fresh `nextCursor` would otherwise be listed until the heap is gone).
 * A refusal is an `McpListingRefusedError` naming the setting that bounds it.
 */
import type { McpServerConfig } from '../../config/schema.js'
import type { McpSdk } from './load-mcp-sdk.js'

type Client = InstanceType<McpSdk['Client']>

export interface McpToolInfo {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
}

export interface McpListingLimits {
  /** For the work as a whole, every page together. */
  timeoutMs: number
  maxPages: number
  maxTools: number
  /** One tool's name, description and schemas, as JSON characters. */
  maxSchemaChars: number
}

/** The limits a server's settings give its listing. */
export function readListingLimits(config: McpServerConfig): McpListingLimits {
  return {
    timeoutMs: config.timeout_ms,
    maxPages: config.max_list_pages,
    maxTools: config.max_tools,
    maxSchemaChars: config.max_schema_chars,
  }
}

export interface ListServerToolsOptions {
  client: Client
  limits: McpListingLimits
  /** Where the limits are set, for the refusal: `tools.mcp_servers.<name>`. */
  settingsPath: string
}

/** Longest cursor accepted: the server hands it out and we send it back. */
const maxCursorChars = 4096

export class McpListingRefusedError extends Error {
  /** The limit the server exceeded: its setting (`tools.mcp_servers.web.max_tools`) or the fixed rule. */
  readonly limit: string

  constructor(message: string, limit: string) {
    super(`tools/list refused: ${message} (${limit})`)
    this.name = 'McpListingRefusedError'
    this.limit = limit
  }
}

export async function listServerTools(options: ListServerToolsOptions): Promise<McpToolInfo[]> {
  const { client, limits, settingsPath } = options
  const refuse = (message: string, setting: string) =>
    new McpListingRefusedError(message, `${settingsPath}.${setting}`)
  const refuseFixed = (message: string, rule: string) => new McpListingRefusedError(message, rule)
  // One deadline for every page together: each page gets what is left of it.
  const deadline = performance.now() + limits.timeoutMs
  const tooLong = () => refuse(`listing every page took longer than ${limits.timeoutMs} ms`, 'timeout_ms')
  const tools: McpToolInfo[] = []
  const seenCursors = new Set<string>()
  let cursor: string | undefined
  let pages = 0
  do {
    if (++pages > limits.maxPages)
      throw refuse(`the server sent more than ${limits.maxPages} pages`, 'max_list_pages')
    const left = Math.ceil(deadline - performance.now())
    if (left <= 0) throw tooLong()
    let page: Awaited<ReturnType<Client['listTools']>>
    try {
      page = await client.listTools(cursor ? { cursor } : {}, { timeout: left })
    } catch (error) {
      // The page's timeout is what was left of the deadline, so the SDK's own timeout (which counts
      // from the event loop's cached time, a little early on a busy loop) is the deadline too.
      if (performance.now() >= deadline || isRequestTimeout(error)) throw tooLong()
      throw error
    }
    if (tools.length + page.tools.length > limits.maxTools)
      throw refuse(`the server listed more than ${limits.maxTools} tools`, 'max_tools')
    for (const tool of page.tools) tools.push(checkTool(tool, limits.maxSchemaChars, refuse))
    cursor = page.nextCursor
    if (cursor !== undefined) {
      if (cursor.length > maxCursorChars)
        throw refuseFixed(
          `a cursor of ${cursor.length} characters, more than ${maxCursorChars}`,
          'the longest cursor accepted',
        )
      if (seenCursors.has(cursor))
        throw refuseFixed('the server repeated the cursor of an earlier page', 'a cursor is used once')
      seenCursors.add(cursor)
    }
  } while (cursor)
  return tools
}

/** The SDK's timeout of one request (`McpError` with JSON-RPC code -32001, `RequestTimeout`). */
function isRequestTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === requestTimeoutCode
}
const requestTimeoutCode = -32001

function checkTool(
  tool: Awaited<ReturnType<Client['listTools']>>['tools'][number],
  maxSchemaChars: number,
  refuse: (message: string, setting: string) => McpListingRefusedError,
): McpToolInfo {
  const size = JSON.stringify([
    tool.name,
    tool.description ?? '',
    tool.inputSchema,
    tool.outputSchema ?? null,
  ]).length
  if (size > maxSchemaChars)
    throw refuse(
      `the tool ${JSON.stringify(tool.name.slice(0, 64))} takes ${size} characters, more than ${maxSchemaChars}`,
      'max_schema_chars',
    )
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Record<string, unknown>,
  }
}
