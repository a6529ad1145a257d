import { describe, expect, it } from 'vitest'
import { listServerTools, McpListingRefusedError } from './list-server-tools.js'

type Client = Parameters<typeof listServerTools>[0]['client']

const limits = { timeoutMs: 8000, maxPages: 100, maxTools: 100, maxSchemaChars: 10_000 }

/** A client whose `tools/list` pages come from `page` (called with the page number and the timeout asked). */
function fakeClient(page: (index: number, timeout: number) => Promise<unknown>): Client {
  let index = 0
  return {
    listTools: (_params: unknown, options: { timeout: number }) => page(index++, options.timeout),
  } as never
}

describe('listServerTools', () => {
  it('gives each page what is left of one deadline, and lists every tool', async () => {
    const timeouts: number[] = []
    const tools = await listServerTools({
      client: fakeClient(async (index, timeout) => {
        timeouts.push(timeout)
        return {
          tools: [{ name: `tool${index}`, inputSchema: { type: 'object' } }],
          nextCursor: index < 2 ? `c${index}` : undefined,
        }
      }),
      limits,
      settingsPath: 'tools.mcp_servers.web',
    })
    expect(tools.map((tool) => tool.name)).toEqual(['tool0', 'tool1', 'tool2'])
    expect(timeouts.every((timeout) => timeout > 0 && timeout <= limits.timeoutMs)).toBe(true)
  })

  it("names the listing's deadline when the SDK's request timeout ends a page, whatever the clock says", async () => {
    // The SDK's timer counts from the event loop's cached time: on a busy loop it fires a little
    // before the deadline as performance.now() sees it. Its timeout is still the deadline.
    const sdkTimeout = Object.assign(new Error('MCP error -32001: Request timed out'), { code: -32001 })
    const listing = listServerTools({
      client: fakeClient(async () => {
        throw sdkTimeout
      }),
      limits,
      settingsPath: 'tools.mcp_servers.web',
    })
    await expect(listing).rejects.toBeInstanceOf(McpListingRefusedError)
    await expect(listing).rejects.toThrow(
      'tools/list refused: listing every page took longer than 8000 ms (tools.mcp_servers.web.timeout_ms)',
    )
  })

  it('passes any other failure of a page on as it is', async () => {
    const refused = Object.assign(new Error('MCP error -32601: Method not found'), { code: -32601 })
    const listing = listServerTools({
      client: fakeClient(async () => {
        throw refused
      }),
      limits,
      settingsPath: 'tools.mcp_servers.web',
    })
    await expect(listing).rejects.toBe(refused)
  })
})
