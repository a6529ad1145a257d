/**
 * For library users: one MCP server's tools as charpipe tools, to hand to `createCharpipe({ tools })`
 * (servers in the config's `tools.mcp_servers` need none of this). Connects once and waits for the
 * tools; a server that exits later is reconnected with backoff, and the same tools keep working.
 */
import { type McpServerConfig, mcpServerSchema } from '../../config/schema.js'
import { CharpipeError, InvalidConfigError } from '../../shared/errors.js'
import { getLogger, type Logger } from '../../shared/logger.js'
import type { Tool } from '../types.js'
import { createMcpToolSource } from './create-mcp-tool-source.js'

export interface CreateMcpToolsOptions {
  logger?: Logger
}

export interface McpTools {
  tools: Tool[]
  /** Disconnects (and ends a stdio server's process). */
  close(): Promise<void>
}

/** `server` is one entry of `tools.mcp_servers` (`{command, args, env, cwd}` or `{url, headers}`). */
export async function createMcpTools(
  name: string,
  server: Partial<McpServerConfig> & ({ command: string } | { url: string }),
  options: CreateMcpToolsOptions = {},
): Promise<McpTools> {
  const parsed = mcpServerSchema.safeParse(server)
  if (!parsed.success) {
    throw new InvalidConfigError(
      parsed.error.issues.map((issue) => ({ path: [name, ...issue.path].join('.'), message: issue.message })),
      { source: 'createMcpTools' },
    )
  }
  const source = createMcpToolSource({
    servers: { [name]: parsed.data },
    logger: options.logger ?? getLogger('mcp'),
  })
  await source.ready(new AbortController().signal)
  const status = source.servers()[0]
  if (status?.state !== 'ready') {
    await source.close()
    throw new CharpipeError('upstream_unreachable', `MCP server ${name}: ${status?.error ?? 'not connected'}`)
  }
  return { tools: [...source.list()], close: () => source.close() }
}
