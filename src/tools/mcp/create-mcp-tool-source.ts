/**
 * Tools from the MCP servers of `tools.mcp_servers`: one more producer of the `Tool` contract. Each
 * server connects in the background (nothing waits for it but a turn, at most its `timeout_ms`),
 * its tools are listed and renamed where providers would refuse the name, and a call goes to the
 * server under its own name with the turn's abort signal (an interrupt sends the MCP cancellation).
 * A server that exits or fails is reconnected with backoff; its tools are unavailable meanwhile, and
 * its status says why, with the last lines it wrote to stderr. Its listing is bounded
 * (`listServerTools`), on connecting and after each `notifications/tools/list_changed` alike; a
 * listing it breaks fails the server. `reconfigure` reconnects only the servers whose settings
 * changed; `close` ends every child.
 */
import { isDeepStrictEqual } from 'node:util'
import type { McpServerConfig } from '../../config/schema.js'
import type { Logger } from '../../shared/logger.js'
import type { Tool, ToolSource } from '../types.js'
import { connectMcpServer, type McpConnection } from './connect-mcp-server.js'
import { convertToolResult } from './convert-tool-result.js'
import {
  createOutputTail,
  describeMcpFailure,
  listServerSecrets,
  type OutputTail,
} from './create-output-tail.js'
import { listServerTools, type McpToolInfo, readListingLimits } from './list-server-tools.js'
import { loadMcpSdk } from './load-mcp-sdk.js'
import { mapToolName } from './map-tool-name.js'

export type McpServerState = 'connecting' | 'ready' | 'failed'

export interface McpServerStatus {
  name: string
  state: McpServerState
  error?: string
}

export interface McpToolCallStats {
  /** The name the model sees. */
  tool: string
  server: string
  calls: number
  errors: number
  seconds: number
}

export interface McpToolSource extends ToolSource {
  servers(): McpServerStatus[]
  /** Calls, errors and time spent per tool since the start (for `/metrics`). */
  callStats(): McpToolCallStats[]
  /** The server a tool (by the name the model sees) comes from. */
  serverOf(toolName: string): string | undefined
  reconfigure(servers: Record<string, McpServerConfig>): void
  close(): Promise<void>
}

export interface CreateMcpToolSourceOptions {
  servers: Record<string, McpServerConfig>
  logger: Logger
  /** Names already taken by the program's own tools. */
  reservedNames?: ReadonlySet<string>
  /** First reconnect delay; doubles up to 30 s. */
  restartDelayMs?: number
}

interface ServerEntry {
  name: string
  config: McpServerConfig
  state: McpServerState
  error?: string
  tools: Tool[]
  connection?: McpConnection
  /** Settles when the current connection attempt is over (either way). */
  attempt?: Promise<void>
  /** Abandons the current attempt (removal, close, its deadline). */
  abandon?: AbortController
  retryTimer?: NodeJS.Timeout
  failures: number
  removed: boolean
  /** Its first attempt is over: later reconnects do not hold up turns. */
  settled: boolean
  /** The last lines a stdio server wrote to stderr (this connection's). */
  output: OutputTail
  /** A listing after `list_changed` is running; `again` asks for one more after it. */
  relisting?: { again: boolean }
}

const maxRestartDelayMs = 30_000

export function createMcpToolSource(options: CreateMcpToolSourceOptions): McpToolSource {
  const { logger } = options
  const entries = new Map<string, ServerEntry>()
  const firstDelay = options.restartDelayMs ?? 500
  let offered: { tools: Tool[]; origin: Map<string, string> } | undefined
  const stats = new Map<string, McpToolCallStats>()
  /** Attempts abandoned at their deadline, still closing (ending their child); `close` waits for them. */
  const abandoned = new Set<Promise<unknown>>()

  const invalidate = () => {
    offered = undefined
  }

  const makeTool = (entry: ServerEntry, info: McpToolInfo): Tool => {
    const config = entry.config
    return {
      name: mapToolName(config.prefix, info.name),
      description: info.description ?? '',
      parameters: info.inputSchema ?? { type: 'object', properties: {} },
      async execute(args, callOptions) {
        const connection = entry.connection
        if (!connection || entry.state !== 'ready') {
          throw new Error(`the MCP server ${entry.name} is not available right now`)
        }
        const name = mapToolName(config.prefix, info.name)
        const key = `${entry.name}\u0000${name}`
        let counted = stats.get(key)
        if (!counted) {
          counted = { tool: name, server: entry.name, calls: 0, errors: 0, seconds: 0 }
          stats.set(key, counted)
        }
        const started = performance.now()
        let failed = true
        try {
          const answer = await connection.client
            .callTool({ name: info.name, arguments: args }, undefined, {
              signal: callOptions.signal,
              timeout: config.timeout_ms,
            })
            .catch((error: unknown) => {
              // "Connection closed" says less than why charpipe closed it.
              throw connection.whyEnded() ?? error
            })
          const value = convertToolResult(answer, { maxChars: config.max_result_chars })
          failed = false
          return value
        } finally {
          counted.calls++
          if (failed) counted.errors++
          counted.seconds += (performance.now() - started) / 1000
        }
      },
    }
  }

  const scheduleRetry = (entry: ServerEntry) => {
    if (entry.removed) return
    const delay = Math.min(firstDelay * 2 ** entry.failures, maxRestartDelayMs)
    entry.failures++
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined
      connect(entry)
    }, delay)
    entry.retryTimer.unref?.()
  }

  const markFailed = (entry: ServerEntry, error: string) => {
    entry.state = 'failed'
    entry.error = error
    entry.tools = []
    invalidate()
  }

  const refreshTools = async (entry: ServerEntry, connection: McpConnection) => {
    const listed = await listServerTools({
      client: connection.client,
      limits: readListingLimits(entry.config),
      settingsPath: `tools.mcp_servers.${entry.name}`,
    })
    const { include, exclude } = entry.config
    entry.tools = listed
      .filter((tool) => include.length === 0 || include.includes(tool.name))
      .filter((tool) => !exclude.includes(tool.name))
      .map((tool) => makeTool(entry, tool))
    invalidate()
  }

  /** After `list_changed`: one listing at a time, and a burst of notifications costs one more at most. */
  const relist = (entry: ServerEntry, connection: McpConnection) => {
    if (entry.relisting) {
      entry.relisting.again = true
      return
    }
    const relisting = { again: false }
    entry.relisting = relisting
    void (async () => {
      do {
        relisting.again = false
        await refreshTools(entry, connection)
      } while (relisting.again && entry.connection === connection)
    })()
      .catch(async (error) => {
        if (entry.connection !== connection || entry.removed) return
        const reason = describeMcpFailure(error, entry.output)
        logger.warn({ server: entry.name, err: reason }, 'MCP tools could not be listed again; reconnecting')
        // A server that breaks its listing is not trusted with the tools it listed before.
        entry.connection = undefined
        markFailed(entry, reason)
        await connection.close()
        scheduleRetry(entry)
      })
      .finally(() => {
        if (entry.relisting === relisting) delete entry.relisting
      })
  }

  const connect = (entry: ServerEntry) => {
    entry.state = 'connecting'
    delete entry.error
    delete entry.relisting
    entry.output.clear()
    const abandon = new AbortController()
    entry.abandon = abandon
    const attempt = (async () => {
      let connection: McpConnection | undefined
      try {
        const sdk = await loadMcpSdk()
        connection = await withTimeout(
          connectMcpServer({
            sdk,
            config: entry.config,
            signal: abandon.signal,
            onClose: (why) => {
              if (entry.connection !== connection || entry.removed) return
              entry.connection = undefined
              const reason = describeMcpFailure(
                `${why ?? 'the server closed the connection'}; reconnecting`,
                entry.output,
              )
              markFailed(entry, reason)
              logger.warn(
                { server: entry.name, err: reason },
                'MCP server closed the connection; reconnecting',
              )
              scheduleRetry(entry)
            },
            onToolsChanged: () => {
              const current = entry.connection
              if (current) relist(entry, current)
            },
            onOutput: (chunk) => entry.output.write(chunk),
          }),
          entry.config.timeout_ms,
          `connecting took longer than ${entry.config.timeout_ms} ms`,
          (late) => {
            abandon.abort()
            const settled = late.then(
              (connection) => connection.close(),
              () => {},
            )
            abandoned.add(settled)
            void settled.finally(() => abandoned.delete(settled))
          },
        )
        if (entry.removed) {
          await connection.close()
          return
        }
        entry.connection = connection
        await refreshTools(entry, connection)
        entry.state = 'ready'
        entry.failures = 0
        invalidate()
        logger.info({ server: entry.name, tools: entry.tools.length }, 'MCP server ready')
      } catch (error) {
        if (entry.removed) return
        if (connection) await connection.close()
        entry.connection = undefined
        // The output of a child that just exited may still be on its way through the pipe.
        await new Promise((resolve) => setImmediate(resolve))
        const reason = describeMcpFailure(error, entry.output)
        markFailed(entry, reason)
        logger.warn({ server: entry.name, err: reason }, 'MCP server could not be connected')
        scheduleRetry(entry)
      }
    })()
    entry.attempt = attempt
    void attempt.finally(() => {
      entry.settled = true
    })
    return attempt
  }

  const add = (name: string, config: McpServerConfig) => {
    const entry: ServerEntry = {
      name,
      config,
      state: 'connecting',
      tools: [],
      failures: 0,
      removed: false,
      settled: false,
      output: createOutputTail({
        secrets: listServerSecrets(config),
        onLine: (line) => logger.debug({ server: name, line }, 'MCP server output'),
      }),
    }
    entries.set(name, entry)
    void connect(entry)
  }

  const remove = async (entry: ServerEntry) => {
    entry.removed = true
    entries.delete(entry.name)
    if (entry.retryTimer) clearTimeout(entry.retryTimer)
    invalidate()
    entry.abandon?.abort()
    await entry.attempt?.catch(() => {})
    await entry.connection?.close()
    entry.connection = undefined
  }

  /** Every ready server's tools; a name two servers offer is a config error on the later one. */
  const assemble = () => {
    if (offered) return offered
    const tools: Tool[] = []
    const origin = new Map<string, string>()
    for (const entry of entries.values()) {
      if (entry.state !== 'ready') continue
      const clash = entry.tools.find((tool) => origin.has(tool.name) || options.reservedNames?.has(tool.name))
      if (clash) {
        const other = origin.get(clash.name)
        const message = other
          ? `the tool ${clash.name} is offered by both ${other} and ${entry.name}: set tools.mcp_servers.${entry.name}.prefix (or the other's) to tell them apart`
          : `the tool ${clash.name} has the name of one of the program's tools: set tools.mcp_servers.${entry.name}.prefix`
        entry.state = 'failed'
        entry.error = message
        logger.error({ server: entry.name }, message)
        continue
      }
      for (const tool of entry.tools) {
        tools.push(tool)
        origin.set(tool.name, entry.name)
      }
    }
    offered = { tools, origin }
    return offered
  }

  for (const [name, config] of Object.entries(options.servers)) add(name, config)

  return {
    list: () => assemble().tools,
    serverOf: (toolName) => assemble().origin.get(toolName),
    async ready(signal) {
      // Only first attempts are waited for: a server being reconnected is unavailable meanwhile.
      const pending = [...entries.values()].filter(
        (entry) => !entry.settled && entry.state === 'connecting' && entry.attempt,
      )
      if (pending.length === 0 || signal.aborted) return
      // Connecting and listing are bounded by timeout_ms each; a turn waits timeout_ms at most.
      const longest = Math.max(...pending.map((entry) => entry.config.timeout_ms))
      let timer: NodeJS.Timeout | undefined
      await new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true })
        timer = setTimeout(resolve, longest)
        void Promise.allSettled(pending.map((entry) => entry.attempt)).then(() => resolve())
      })
      clearTimeout(timer)
    },
    callStats: () => [...stats.values()].map((entry) => ({ ...entry })),
    servers: () => {
      assemble()
      return [...entries.values()].map((entry) => ({
        name: entry.name,
        state: entry.state,
        ...(entry.error ? { error: entry.error } : {}),
      }))
    },
    reconfigure(servers) {
      for (const entry of [...entries.values()]) {
        // Own keys only: a removed server named `toString` is gone, not Object.prototype's function.
        const next = Object.hasOwn(servers, entry.name) ? servers[entry.name] : undefined
        if (next && isDeepStrictEqual(next, entry.config)) continue
        void remove(entry).then(() => {
          if (next && !entries.has(entry.name)) add(entry.name, next)
        })
      }
      for (const [name, config] of Object.entries(servers)) if (!entries.has(name)) add(name, config)
    },
    async close() {
      await Promise.all([...entries.values()].map((entry) => remove(entry)))
      await Promise.all([...abandoned])
    },
  }
}

/** `onDeadline` gets the abandoned work (a connection attempt to close rather than leave running). */
function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  message: string,
  onDeadline: (late: Promise<T>) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onDeadline(promise)
      reject(new Error(message))
    }, ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
