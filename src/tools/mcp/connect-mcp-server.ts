/**
 * One connection to one MCP server through the official SDK client: a stdio child process, or a
 * remote server over Streamable HTTP (falling back to the older SSE transport when that fails).
 */
import { StringDecoder } from 'node:string_decoder'
import type { McpServerConfig } from '../../config/schema.js'
import { limitResponseBody } from '../../shared/limit-response-body.js'
import { createLineBuffer } from './create-line-buffer.js'
import { hideAnsweredPage } from './hide-answered-page.js'
import type { McpSdk } from './load-mcp-sdk.js'

type Client = InstanceType<McpSdk['Client']>

export interface McpConnection {
  client: Client
  /** Process id of a stdio server's child. */
  pid?: number
  /** Why the connection ended, when charpipe ended it (an answer past its bound). */
  whyEnded(): Error | undefined
  close(): Promise<void>
}

export interface ConnectMcpServerOptions {
  sdk: McpSdk
  config: McpServerConfig
  /**
   * Called once when the connection ends without `close()` (a server that exited or hung up, or an
   * answer past its bound: then `reason` names it).
   */
  onClose(reason?: string): void
  onToolsChanged(): void
  /** What a stdio server writes to its stderr, chunk by chunk (see `createOutputTail`). */
  onOutput?(chunk: string): void
  /** Abandons the attempt: the half-open connection is closed (a started child is ended). */
  signal?: AbortSignal
}

const clientInfo = { name: 'charpipe', version: '1' }

/** Connects and completes the MCP handshake (bounded by the server's `timeout_ms`). */
export async function connectMcpServer(options: ConnectMcpServerOptions): Promise<McpConnection> {
  const { sdk, config } = options
  if ('command' in config) {
    const transport = new sdk.StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...sdk.getDefaultEnvironment(), ...config.env },
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    })
    const whyEnded = useLineBuffer(transport, sdk)
    // A chunk may end inside a character: the decoder keeps its bytes for the next one.
    const decoder = new StringDecoder('utf8')
    transport.stderr?.on('data', (chunk: Buffer) => options.onOutput?.(decoder.write(chunk)))
    // The SDK closes the transport on a line past the bound; "Connection closed" would hide why.
    const client = await startClient(options, transport).catch((error: unknown) => {
      throw whyEnded() ?? error
    })
    return connection(client, options, transport.pid ?? undefined, whyEnded)
  }
  try {
    return await connectRemote(options)
  } catch (error) {
    throw hideAnsweredPage(error)
  }
}

/**
 * Gives a stdio transport the linear buffer of `createLineBuffer` in place of the SDK's (a private
 * field, so only when it is there and looks as expected: a later SDK keeps its own). Returns why
 * the buffer refused the server's output, once it has.
 */
function useLineBuffer(transport: object, sdk: McpSdk): () => Error | undefined {
  let refused: Error | undefined
  const held = transport as { _readBuffer?: { append?: unknown; readMessage?: unknown } }
  if (typeof held._readBuffer?.append !== 'function' || typeof held._readBuffer.readMessage !== 'function')
    return () => undefined
  const buffer = createLineBuffer({ maxBytes: sdk.stdioMaxBufferBytes, parse: sdk.deserializeMessage })
  held._readBuffer = {
    ...buffer,
    append(chunk: Buffer) {
      try {
        buffer.append(chunk)
      } catch (error) {
        refused ??= new Error(`the server wrote a line longer than ${sdk.stdioMaxBufferBytes} bytes: refused`)
        throw error
      }
    },
  }
  return () => refused
}

async function connectRemote(options: ConnectMcpServerOptions): Promise<McpConnection> {
  const { sdk } = options
  const config = options.config as Extract<ConnectMcpServerOptions['config'], { url: string }>
  const url = new URL(config.url)
  // An answer past a bound ends the connection it came on: a request waiting on it fails now, with
  // the bound named, rather than at its timeout.
  const connect = async (
    makeTransport: (fetch: McpFetch) => Parameters<Client['connect']>[0],
  ): Promise<McpConnection> => {
    let refused: Error | undefined
    let transport: Parameters<Client['connect']>[0] | undefined
    const fetch: McpFetch = (input, init) =>
      fetchBounded(input, init, (error) => {
        refused ??= error
        transport?.close().catch(() => {})
      })
    transport = makeTransport(fetch)
    try {
      return connection(await startClient(options, transport), options, undefined, () => refused)
    } catch (error) {
      throw refused ?? error
    }
  }
  const requestInit = { headers: config.headers }
  const overSse = () => connect((fetch) => new sdk.SSEClientTransport(url, { requestInit, fetch }))
  if (config.type === 'sse') return overSse()
  try {
    return await connect((fetch) => new sdk.StreamableHTTPClientTransport(url, { requestInit, fetch }))
  } catch (streamableError) {
    try {
      return await overSse()
    } catch {
      throw streamableError
    }
  }
}

type McpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>

/** Largest answer of a remote MCP server read whole (JSON), counted after decompression. */
export const maxMcpAnswerBytes = 64 * 1024 * 1024
/** Largest message of its event streams. */
export const maxMcpEventBytes = 16 * 1024 * 1024

/**
 * The global fetch of the moment (a proxy the application routed it through still applies), with
 * its answers bounded: an MCP server is remote, and neither an inflating body nor an event that
 * never ends may grow the process without bound.
 */
async function fetchBounded(
  input: string | URL,
  init: RequestInit | undefined,
  onRefused: (error: Error) => void,
): Promise<Response> {
  return limitResponseBody(await fetch(input, init), {
    maxBytes: maxMcpAnswerBytes,
    maxEventBytes: maxMcpEventBytes,
    refuse(bound, bytes) {
      const error = new Error(
        bound === 'body'
          ? `the MCP server's answer passed ${bytes} bytes: refused`
          : `a message of the MCP server's event stream passed ${bytes} bytes: refused`,
      )
      onRefused(error)
      return error
    },
  })
}

async function startClient(
  options: ConnectMcpServerOptions,
  transport: Parameters<Client['connect']>[0],
): Promise<Client> {
  const client = new options.sdk.Client(clientInfo, { capabilities: {} })
  client.setNotificationHandler(options.sdk.ToolListChangedNotificationSchema, () => options.onToolsChanged())
  // One close, awaited by whoever comes second: a child is only ended once its close has finished.
  let closing: Promise<void> | undefined
  const closeClient = () => {
    closing ??= client.close().catch(() => {})
    return closing
  }
  const abandon = () => void closeClient()
  options.signal?.addEventListener('abort', abandon, { once: true })
  try {
    options.signal?.throwIfAborted()
    await client.connect(transport, { timeout: options.config.timeout_ms })
    options.signal?.throwIfAborted()
  } catch (error) {
    await closeClient()
    throw error
  } finally {
    options.signal?.removeEventListener('abort', abandon)
  }
  return client
}

function connection(
  client: Client,
  options: ConnectMcpServerOptions,
  pid?: number,
  whyEnded: () => Error | undefined = () => undefined,
): McpConnection {
  let closing = false
  client.onclose = () => {
    if (!closing) options.onClose(whyEnded()?.message)
  }
  return {
    client,
    ...(pid !== undefined ? { pid } : {}),
    whyEnded,
    async close() {
      closing = true
      await client.close().catch(() => {})
    },
  }
}
