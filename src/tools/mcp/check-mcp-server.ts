/**
 * `charpipe doctor`'s look at one MCP server: connect, list its tools (within the listing's
 * limits), disconnect. Never throws: the reason it could not connect, with the last lines a stdio
 * server wrote to stderr, is the verdict.
 */
import type { McpServerConfig } from '../../config/schema.js'
import { connectMcpServer } from './connect-mcp-server.js'
import { createOutputTail, describeMcpFailure, listServerSecrets } from './create-output-tail.js'
import { listServerTools, readListingLimits } from './list-server-tools.js'
import { loadMcpSdk } from './load-mcp-sdk.js'

export interface CheckMcpServerResult {
  ok: boolean
  /** The server's tool names (before `include`, `exclude` and `prefix`). */
  tools: string[]
  error?: string
}

export async function checkMcpServer(name: string, config: McpServerConfig): Promise<CheckMcpServerResult> {
  let timer: NodeJS.Timeout | undefined
  let connection: Awaited<ReturnType<typeof connectMcpServer>> | undefined
  const output = createOutputTail({ secrets: listServerSecrets(config) })
  const work = (async () => {
    const sdk = await loadMcpSdk()
    connection = await connectMcpServer({
      sdk,
      config,
      onClose() {},
      onToolsChanged() {},
      onOutput: (chunk) => output.write(chunk),
    })
    return listServerTools({
      client: connection.client,
      limits: readListingLimits(config),
      settingsPath: `tools.mcp_servers.${name}`,
    })
  })()
  const deadline = new Promise<never>((_, reject) => {
    // Connecting and listing have timeout_ms each.
    timer = setTimeout(
      () => reject(new Error(`no answer within ${2 * config.timeout_ms} ms`)),
      2 * config.timeout_ms,
    )
  })
  try {
    const tools = await Promise.race([work, deadline])
    return { ok: true, tools: tools.map((tool) => tool.name) }
  } catch (error) {
    // The output of a child that just exited may still be on its way through the pipe.
    await new Promise((resolve) => setImmediate(resolve))
    return { ok: false, tools: [], error: describeMcpFailure(error, output) }
  } finally {
    clearTimeout(timer)
    // A connection that arrives after the deadline is closed too (no child left running).
    void work.catch(() => {}).finally(() => connection?.close())
    await connection?.close()
  }
}
