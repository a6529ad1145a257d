/**
 * The MCP SDK is an optional peer dependency: it is imported only when a server is configured, so
 * a setup without MCP servers never loads it (nor needs it installed).
 */
import { InvalidConfigError } from '../../shared/errors.js'

export interface McpSdk {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport
  SSEClientTransport: typeof import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransport
  ToolListChangedNotificationSchema: typeof import('@modelcontextprotocol/sdk/types.js').ToolListChangedNotificationSchema
  deserializeMessage: typeof import('@modelcontextprotocol/sdk/shared/stdio.js').deserializeMessage
  stdioMaxBufferBytes: number
}

let loading: Promise<McpSdk> | undefined

/** Loads the SDK once; a missing package becomes a config error that says what to install. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= importSdk().catch((error: unknown) => {
    loading = undefined
    throw new InvalidConfigError(
      [
        {
          path: 'tools.mcp_servers',
          message:
            'MCP servers need the package @modelcontextprotocol/sdk: install it next to charpipe (npm install @modelcontextprotocol/sdk)',
        },
      ],
      { cause: error },
    )
  })
  return loading
}

async function importSdk(): Promise<McpSdk> {
  const [client, stdio, streamable, sse, types, stdioShared] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/shared/stdio.js'),
  ])
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: streamable.StreamableHTTPClientTransport,
    SSEClientTransport: sse.SSEClientTransport,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    deserializeMessage: stdioShared.deserializeMessage,
    stdioMaxBufferBytes: stdioShared.STDIO_DEFAULT_MAX_BUFFER_SIZE,
  }
}
