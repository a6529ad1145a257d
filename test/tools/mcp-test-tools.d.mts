import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'

export interface CreateTestMcpServerOptions {
  name?: string
  toolPrefix?: string
  onSlowStarted?: () => void
  onCancelled?: () => void
}

export function createTestMcpServer(options?: CreateTestMcpServerOptions): McpServer

export const testImage: string
