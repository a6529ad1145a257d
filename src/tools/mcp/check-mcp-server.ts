/**
 * `charpipe doctor`'s look at one MCP server: connect, list its tools, disconnect. Never throws:
 * the reason it could not connect is the verdict.
 */
import type { McpServerConfig } from '../../config/schema.js'
import { connectMcpServer, listServerTools } from './connect-mcp-server.js'
import { loadMcpSdk } from './load-mcp-sdk.js'

export interface CheckMcpServerResult {
  ok: boolean
  /** The server's tool names (before `include`, `exclude` and `prefix`). */
  tools: string[]
  error?: string
}

export async function checkMcpServer(config: McpServerConfig): Promise<CheckMcpServerResult> {
  let timer: NodeJS.Timeout | undefined
  let connection: Awaited<ReturnType<typeof connectMcpServer>> | undefined
  const work = (async () => {
    const sdk = await loadMcpSdk()
    connection = await connectMcpServer({ sdk, config, onClose() {}, onToolsChanged() {} })
    return listServerTools(connection.client, config.timeout_ms)
  })()
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${config.timeout_ms} ms`)), config.timeout_ms)
  })
  try {
    const tools = await Promise.race([work, deadline])
    return { ok: true, tools: tools.map((tool) => tool.name) }
  } catch (error) {
    return { ok: false, tools: [], error: error instanceof Error ? error.message : String(error) }
  } finally {
    clearTimeout(timer)
    // A connection that arrives after the deadline is closed too (no child left running).
    void work.catch(() => {}).finally(() => connection?.close())
    await connection?.close()
  }
}
